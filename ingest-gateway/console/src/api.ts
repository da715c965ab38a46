/**
 * The console's client of the gateway's HTTP API: same origin, every call with the admin
 * credential as a Bearer header. A refusal becomes an ApiError carrying the API's message and the
 * field it names, so a form can show the message next to that field.
 */

/** A refusal of the API: `message` is the body's `error`, `field` the request field it names. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field: string | undefined,
  ) {
    super(message);
  }
}

/** A page of a list: the records and the token of the next page (null on the last). */
interface Page<T> {
  items: T[];
  next: string | null;
}

export type Query = Record<string, string | undefined>;

export interface Api {
  /** `/api/{segment}/dh`: every path below is relative to it. */
  base: string;
  credential: string;
  get<T>(path: string, query?: Query): Promise<T>;
  send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  list<T>(path: string, key: string, query: Query): Promise<Page<T>>;
}

/** The query string of the set, non-empty values. */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The field an error body names (its `field`, which every 400 carries), undefined when it names none. */
export function fieldOf(body: { error?: unknown; field?: unknown; rule?: unknown }): string | undefined {
  return typeof body.field === 'string' ? body.field : undefined;
}

async function failure(res: Response): Promise<ApiError> {
  let body: { error?: unknown; field?: unknown } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const message = typeof body.error === 'string' ? body.error : `the server answered ${res.status} ${res.statusText}`.trim();
  return new ApiError(message, res.status, fieldOf(body));
}

/**
 * The API at `base` (from the page's own path) with the admin credential. `onRefused` is told when
 * the credential itself is refused (401: ADMIN_TOKEN changed or was unset meanwhile).
 */
export function createApi(base: string, credential: string, onRefused: (message: string) => void = () => {}): Api {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${credential}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ApiError('the gateway did not answer (network error)', 0, undefined);
    }
    if (!res.ok) {
      const error = await failure(res);
      if (res.status === 401) onRefused(error.message);
      throw error;
    }
    return (await res.json()) as T;
  };
  return {
    base,
    credential,
    get: (path, query) => call('GET', `${path}${queryString(query)}`),
    send: (method, path, body) => call(method, path, body),
    list: async <T>(path: string, key: string, query: Query) => {
      const page = await call<Record<string, unknown>>('GET', `${path}${queryString(query)}`);
      return { items: (page[key] ?? []) as T[], next: (page.next_page_token as string | null | undefined) ?? null };
    },
  };
}

/** The API base for a console page at `{base}/settings/dynamic-events/`. */
export function apiBaseOf(pathname: string): string {
  const at = pathname.indexOf('/settings/dynamic-events');
  return at < 0 ? '/api/platform/dh' : pathname.slice(0, at);
}
