import { useEffect, useState } from 'preact/hooks';
import { apiBaseOf, type Api } from './api.js';
import { SCREENS, screenOf, type ScreenId } from './routes.js';
import { SignIn } from './screens/sign-in.js';
import { EventsScreen } from './screens/events-screen.js';
import { DevicesScreen, EventTypesScreen, ObjectsScreen } from './screens/entity-screens.js';
import { TokensScreen } from './screens/tokens-screen.js';
import { WebhooksScreen } from './screens/webhooks-screen.js';
import { useTokenNames } from './token-names.js';

/** The screen a hash names, followed as the hash changes (links, back and forward). */
function useScreen(): ScreenId {
  const [screen, setScreen] = useState(() => screenOf(location.hash));
  useEffect(() => {
    const follow = () => setScreen(screenOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return screen;
}

/** The console: the sign-in form until an admin credential is accepted, then the screens. */
export function App() {
  const [api, setApi] = useState<Api | undefined>();
  const [ended, setEnded] = useState<string | undefined>();
  const screen = useScreen();
  const refused = (message: string) => {
    setApi(undefined);
    setEnded(message);
  };
  if (!api) return <SignIn base={apiBaseOf(location.pathname)} onSignedIn={setApi} ended={ended} onRefused={refused} />;
  return (
    <SignedIn
      api={api}
      screen={screen}
      onSignOut={() => {
        setApi(undefined);
        setEnded(undefined);
      }}
    />
  );
}

function SignedIn({ api, screen, onSignOut }: { api: Api; screen: ScreenId; onSignOut: () => void }) {
  const names = useTokenNames(api, screen);
  useEffect(() => {
    document.title = `${SCREENS.find((s) => s.id === screen)?.name ?? ''} · Dynamic events settings`;
  }, [screen]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Dynamic events settings</span>
        <nav aria-label="Screens">
          <ul>
            {SCREENS.map((s) => (
              <li key={s.id}>
                <a href={`#/${s.id}`} aria-current={s.id === screen ? 'page' : undefined}>
                  {s.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {screen === 'events' && <EventsScreen api={api} names={names.names} tokens={names.tokens} />}
        {screen === 'devices' && <DevicesScreen api={api} names={names.names} />}
        {screen === 'objects' && <ObjectsScreen api={api} names={names.names} />}
        {screen === 'event-types' && <EventTypesScreen api={api} names={names.names} />}
        {screen === 'tokens' && <TokensScreen api={api} onTokensChanged={names.reload} />}
        {screen === 'webhooks' && <WebhooksScreen api={api} />}
      </main>
    </>
  );
}
