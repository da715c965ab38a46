/** The console's API client: the Bearer header, refusals as ApiError, a refused credential reported. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiBaseOf, ApiError, createApi } from '../../console/src/api.js';

describe('console API client', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('sends the credential as Bearer and leaves empty filters out of the query', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ devices: [{ device_name: 'a' }], next_page_token: 'n' })));
    vi.stubGlobal('fetch', fetch);
    const page = await createApi('/api/x/dh', 'secret').list('/devices', 'devices', { limit: '50', page_token: undefined, domain: '' });
    expect(page).toEqual({ items: [{ device_name: 'a' }], next: 'n' });
    expect(fetch).toHaveBeenCalledWith('/api/x/dh/devices?limit=50', expect.objectContaining({ method: 'GET', headers: { Authorization: 'Bearer secret', Accept: 'application/json' } }));
  });

  it('throws the API message with the field it names, and reports a refused credential', async () => {
    const refused = vi.fn();
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: 'name is required', field: 'name', rule: 'required' }), { status: 400 }));
    const api = createApi('', 'secret', refused);
    await expect(api.send('POST', '/t', {})).rejects.toEqual(new ApiError('name is required', 400, 'name'));
    // Where a refusal belongs comes from the body's field, never from the message's wording.
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: 'name is required' }), { status: 400 }));
    await expect(api.send('POST', '/t', {})).rejects.toEqual(new ApiError('name is required', 400, undefined));
    expect(refused).not.toHaveBeenCalled();
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: 'invalid admin bearer token' }), { status: 401 }));
    await expect(api.get('/t')).rejects.toBeInstanceOf(ApiError);
    expect(refused).toHaveBeenCalledWith('invalid admin bearer token');
  });

  it('finds the API base in the console page path', () => {
    expect(apiBaseOf('/api/acme/dh/settings/dynamic-events/')).toBe('/api/acme/dh');
  });
});
