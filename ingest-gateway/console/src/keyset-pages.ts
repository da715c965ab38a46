import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api, type Query } from './api.js';

const PAGE_SIZE = '50';

/**
 * One page of a keyset-paged list (GET {path}?…&page_token=): "Next page" follows the answer's
 * next_page_token with the same filters, "First page" goes back to the start. Changing the filters
 * starts again from the first page.
 */
export function useKeysetPages<T>(api: Api, path: string, key: string, filters: Query) {
  const filterKey = JSON.stringify(filters);
  // The page token belongs to the filters it was handed out with: new filters start at page 1.
  const [cursor, setCursor] = useState<{ filterKey: string; token: string | undefined }>({ filterKey, token: undefined });
  const token = cursor.filterKey === filterKey ? cursor.token : undefined;
  const [page, setPage] = useState<{ items: T[]; next: string | null; number: number }>({ items: [], next: null, number: 1 });
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    let current = true;
    setLoading(true);
    api.list<T>(path, key, { ...filters, limit: PAGE_SIZE, page_token: token }).then(
      (answer) => {
        if (!current) return;
        setPage((before) => ({ ...answer, number: token === undefined ? 1 : before.number + 1 }));
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(err instanceof ApiError ? err.message : String(err));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [api, path, key, filterKey, token]);

  return {
    ...page,
    error,
    loading,
    nextPage: () => page.next !== null && setCursor({ filterKey, token: page.next }),
    firstPage: () => setCursor({ filterKey, token: undefined }),
  };
}
