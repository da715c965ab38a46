import { useEffect, useState } from 'preact/hooks';
import { apiBaseOf, type Api } from './api.js';
import { paramsOf, SCREENS, screenOf, type ScreenId } from './routes.js';
import { SignIn } from './screens/sign-in.js';
import { EventsScreen } from './screens/events-screen.js';
import { OverviewScreen } from './screens/overview-screen.js';
import { DevicesScreen, EventTypesScreen, ObjectsScreen } from './screens/entity-screens.js';
import { TokensScreen } from './screens/tokens-screen.js';
import { WebhooksScreen } from './screens/webhooks-screen.js';
import { useTokenNames } from './token-names.js';

/** The location hash, followed as it changes (links, back and forward). */
function useHash(): string {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const follow = () => setHash(location.hash);
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return hash;
}

/** The console: the sign-in form until an admin credential is accepted, then the screens. */
export function App() {
  const [api, setApi] = useState<Api | undefined>();
  const [ended, setEnded] = useState<string | undefined>();
  const hash = useHash();
  const refused = (message: string) => {
    setApi(undefined);
    setEnded(message);
  };
  if (!api) return <SignIn base={apiBaseOf(location.pathname)} onSignedIn={setApi} ended={ended} onRefused={refused} />;
  return (
    <SignedIn
      api={api}
      hash={hash}
      onSignOut={() => {
        setApi(undefined);
        setEnded(undefined);
      }}
    />
  );
}

/** The screens once signed in; a link with other filters ("#/events?device_name=x") opens its screen afresh. */
function SignedIn({ api, hash, onSignOut }: { api: Api; hash: string; onSignOut: () => void }) {
  const screen: ScreenId = screenOf(hash);
  const params = paramsOf(hash);
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
        {screen === 'overview' && <OverviewScreen api={api} />}
        {screen === 'events' && <EventsScreen key={hash} api={api} names={names.names} tokens={names.tokens} params={params} />}
        {screen === 'devices' && <DevicesScreen key={hash} api={api} names={names.names} params={params} />}
        {screen === 'objects' && <ObjectsScreen key={hash} api={api} names={names.names} params={params} />}
        {screen === 'event-types' && <EventTypesScreen key={hash} api={api} names={names.names} params={params} />}
        {screen === 'tokens' && <TokensScreen api={api} onTokensChanged={names.reload} />}
        {screen === 'webhooks' && <WebhooksScreen api={api} />}
      </main>
    </>
  );
}
