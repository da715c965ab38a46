import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api } from './api.js';
import type { TokenJson } from './model.js';

/**
 * Every token (the admin list), and their names by id: the lists show who created a record by the
 * token's name, not its id. Loaded again on each screen change, so a token created or renamed
 * meanwhile is named. A failure leaves the ids shown.
 */
export function useTokenNames(api: Api, screen: string) {
  const [tokens, setTokens] = useState<TokenJson[]>([]);
  const reload = useCallback(() => {
    api.get<{ tokens: TokenJson[] }>('/settings/dynamic-events/tokens').then(
      (answer) => setTokens(answer.tokens),
      () => undefined,
    );
  }, [api]);
  useEffect(reload, [reload, screen]);
  return { tokens, names: new Map(tokens.map((token) => [token.id, token.name])), reload };
}
