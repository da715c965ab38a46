/** The webhook admin API's delivery log: list, read with attempts, retry, recover. */
import { describe, expect, it } from 'vitest';
import { CREATED_TEXT, LATER_TEXT } from './fake-webhook-service.js';
import { useWebhookAdmin, WEBHOOKS } from './webhook-admin-setup.js';

const start = useWebhookAdmin();

const SUCCEEDED = {
  id: 'msg_2f1c',
  event_id: '0193a1b2-0000-7000-8000-0000000000e1',
  type: 'event.created',
  status: 'succeeded',
  attempt_count: 2,
  last_status_code: 204,
  last_error: null,
  next_attempt_at: null,
  created_at: CREATED_TEXT,
  succeeded_at: LATER_TEXT,
};
const PENDING = {
  id: 'msg_9a0b',
  event_id: null,
  type: 'device.created',
  status: 'pending',
  attempt_count: 0,
  last_status_code: null,
  last_error: null,
  next_attempt_at: LATER_TEXT,
  created_at: CREATED_TEXT,
  succeeded_at: null,
};

describe('webhook admin API: the delivery log', () => {
  it('lists deliveries with nulls where unset; status, event_id, limit and page_token reach the registry', async () => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    const all = await json('GET', `${WEBHOOKS}/${id}/deliveries`);
    expect(all).toMatchObject({ status: 200, body: { deliveries: [PENDING, SUCCEEDED], next_page_token: null } });
    const page = await json('GET', `${WEBHOOKS}/${id}/deliveries?limit=1&page_token=d0`);
    expect(page.body).toEqual({ deliveries: [PENDING], next_page_token: 'd1' });
    const succeeded = await json('GET', `${WEBHOOKS}/${id}/deliveries?status=succeeded&event_id=${SUCCEEDED.event_id}`);
    expect(succeeded.body).toEqual({ deliveries: [SUCCEEDED], next_page_token: null });
    await json('GET', `${WEBHOOKS}/${id}/deliveries?status=failed`);
    await json('GET', `${WEBHOOKS}/${id}/deliveries?status=pending`);
    expect(service.requests.map((r) => r.request)).toEqual([
      { webhookId: id, status: 0, eventId: '', pageSize: 100, pageToken: '' },
      { webhookId: id, status: 0, eventId: '', pageSize: 1, pageToken: 'd0' },
      { webhookId: id, status: 2, eventId: SUCCEEDED.event_id, pageSize: 100, pageToken: '' },
      { webhookId: id, status: 3, eventId: '', pageSize: 100, pageToken: '' },
      { webhookId: id, status: 1, eventId: '', pageSize: 100, pageToken: '' },
    ]);
  });

  it.each([
    ['status=done', 'status must be pending, succeeded or failed'],
    ['status=PENDING', 'status must be pending, succeeded or failed'],
    ['status=pending&status=failed', 'status must be given once'],
    ['limit=x', 'limit must be an integer between 1 and 1000'],
    ['since=2026-01-01T00:00:00Z', 'since is not a known parameter (known: status, event_id, limit, page_token)'],
  ])('refuses the delivery query %s with 400 naming the parameter, before the registry', async (query, error) => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    expect(await json('GET', `${WEBHOOKS}/${id}/deliveries?${query}`)).toMatchObject({ status: 400, body: { error } });
    expect(service.requests).toEqual([]);
  });

});

describe('webhook admin API: one delivery, retry, recover', () => {
  it("reads one delivery with its attempts (status_code and error null when there was none); unknown ones are 404", async () => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    const read = await json('GET', `${WEBHOOKS}/${id}/deliveries/msg_2f1c`);
    expect(read).toMatchObject({ status: 200 });
    expect(read.body).toEqual({
      ...SUCCEEDED,
      attempts: [
        { at: CREATED_TEXT, status_code: null, duration_ms: 15000, error: 'timed out after 15000 ms', response_body: '' },
        { at: LATER_TEXT, status_code: 204, duration_ms: 12, error: null, response_body: 'ok' },
      ],
    });
    expect(service.requests.at(-1)?.request).toEqual({ webhookId: id, deliveryId: 'msg_2f1c' });
    expect(await json('GET', `${WEBHOOKS}/${id}/deliveries/nope`)).toMatchObject({ status: 404, body: { error: 'delivery nope not found' } });
    expect(await json('GET', `${WEBHOOKS}/other/deliveries`)).toMatchObject({ status: 404, body: { error: 'webhook other not found' } });
  });

  it('retries one delivery: 202 with the delivery as it now stands (pending, no attempts listed)', async () => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    const retried = await json('POST', `${WEBHOOKS}/${id}/deliveries/msg_2f1c/retry`);
    expect(retried).toMatchObject({ status: 202, body: { ...SUCCEEDED, status: 'pending', next_attempt_at: LATER_TEXT, succeeded_at: null } });
    expect(retried.body).not.toHaveProperty('attempts');
    expect(service.requests.at(-1)).toEqual({ method: 'retryDelivery', request: { webhookId: id, deliveryId: 'msg_2f1c' } });
  });

  it('recovers failed deliveries since a time: 202 {"recovered": n}, since exact to the nanosecond', async () => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    const recovered = await json('POST', `${WEBHOOKS}/${id}/recover`, { since: '2026-11-21T09:20:04.123456789+01:00' });
    expect(recovered).toMatchObject({ status: 202, body: { recovered: 3 } });
    expect(service.requests.at(-1)).toEqual({ method: 'recoverDeliveries', request: { webhookId: id, since: { seconds: '1795249204', nanos: 123456789 } } });
  });

  it.each([
    [{}, 'since is required'],
    [{ since: 5 }, 'since must be a string'],
    [{ since: 'yesterday' }, 'since must be an RFC 3339 timestamp such as 2026-11-21T08:20:04Z, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z'],
    [{ since: '2026-11-21T08:20:04Z', status: 'failed' }, 'status is not a known field'],
    ['[1]', 'body must be a JSON object'],
  ])('refuses the recover body %j with 400 naming the field, before the registry', async (body, error) => {
    const { json, service } = await start();
    const { id } = service.add('https://example.com/a');
    expect(await json('POST', `${WEBHOOKS}/${id}/recover`, body)).toMatchObject({ status: 400, body: { error } });
    expect(service.requests).toEqual([]);
  });
});
