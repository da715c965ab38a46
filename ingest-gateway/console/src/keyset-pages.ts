import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api, type Query } from './api.js';

const PAGE_SIZE = '50';

/**
 * One page of a keyset-paged list (GET {path}?…&page_token=): "Next page" follows the answer's
 * next_page_token with the same filters, "First page" goes back to the start. Changing the filters
 * starts again from the first page; a new `version` reads the same page again (after a change).
 */
export function useKeysetPages<T>(api: Api, path: string, key: string, filters: Query, version = 0) {
  const filterKey = JSON.stringify(filters);
  // The page token belongs to the filters it was handed out with: new filters start at page 1.
  const [cursor, setCursor] = useState<{ filterKey: string; token: string | undefined; number: number }>({ filterKey, token: undefined, number: 1 });
  const current = cursor.filterKey === filterKey ? cursor : { filterKey, token: undefined, number: 1 };
  const token = current.token;
  const [page, setPage] = useState<{ items: T[]; next: string | null; number: number }>({ items: [], next: null, number: 1 });
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    let live = true;
    setLoading(true);
    api.list<T>(path, key, { ...filters, limit: PAGE_SIZE, page_token: token }).then(
      (answer) => {
        if (!live) return;
        setPage({ ...answer, number: current.number });
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        setError(err instanceof ApiError ? err.message : String(err));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [api, path, key, filterKey, token, version]);

  return {
    ...page,
    error,
    loading,
    nextPage: () => page.next !== null && setCursor({ filterKey, token: page.next, number: page.number + 1 }),
    firstPage: () => setCursor({ filterKey, token: undefined, number: 1 }),
  };
}
