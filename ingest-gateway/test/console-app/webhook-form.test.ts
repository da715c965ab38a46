/** The webhook form's body, its lists, where an API refusal is shown, and a webhook or delivery in words. */
import { describe, expect, it } from 'vitest';
import { fieldOf } from '../../console/src/api.js';
import { answerText, filterText, stateText } from '../../console/src/webhook-format.js';
import { EMPTY_WEBHOOK_FORM, linesOf, webhookBodyOf, webhookFormOf, webhookInputOf } from '../../console/src/webhook-form-model.js';

const webhook = {
  id: 'wh_1',
  url: 'https://hooks.example.com/in',
  description: 'Ticketing',
  filter: { domains: ['acme.*'], event_types: ['motion_detected', 'door_opened'], kinds: ['event.created', 'device.created'] },
  enabled: true,
  disabled_reason: null,
  created_at: '2026-11-26T19:40:01.123456789Z',
  updated_at: '2026-11-26T19:40:01.123456789Z',
};

describe('console webhook form', () => {
  it('creates an enabled webhook for event.created with no other restriction from an untouched form', () => {
    expect(EMPTY_WEBHOOK_FORM.kinds).toEqual({ 'event.created': true, 'device.created': false, 'object.created': false, 'event_type.created': false });
    expect(webhookBodyOf({ ...EMPTY_WEBHOOK_FORM, url: ' https://h.example/x ' }, false)).toEqual({
      url: 'https://h.example/x',
      description: '',
      filter: { kinds: ['event.created'] },
      enabled: true,
    });
  });

  it('reads each list one entry a line, blank lines and spaces dropped; an empty box restricts nothing', () => {
    expect(linesOf(' acme.*\n\n  b.c \r\n')).toEqual(['acme.*', 'b.c']);
    expect(linesOf(' \n ')).toEqual([]);
    const values = { ...EMPTY_WEBHOOK_FORM, url: 'https://h.example/x', domains: 'acme.*\nb.*', eventTypes: '', deviceNames: 'cam-1\n', kinds: { ...EMPTY_WEBHOOK_FORM.kinds, 'object.created': true } };
    expect(webhookBodyOf(values, false).filter).toEqual({ domains: ['acme.*', 'b.*'], device_names: ['cam-1'], kinds: ['event.created', 'object.created'] });
  });

  it('sends no kind when none is ticked (the API then says what it accepts)', () => {
    const none = { ...EMPTY_WEBHOOK_FORM, kinds: { 'event.created': false, 'device.created': false, 'object.created': false, 'event_type.created': false } };
    expect(webhookBodyOf(none, false).filter).toEqual({ kinds: [] });
  });

  it('fills the form from a webhook and sends its settings back unchanged, without enabled (a switch of its own)', () => {
    const form = webhookFormOf(webhook);
    expect(form.eventTypes).toBe('motion_detected\ndoor_opened');
    expect(webhookBodyOf(form, true)).toEqual({ url: webhook.url, description: webhook.description, filter: webhook.filter });
  });

  it('shows a refusal next to the input its field names', () => {
    expect(fieldOf({ error: 'url must not point to a loopback address (WEBHOOK_ALLOWED_NETWORKS lists the networks allowed)', field: 'url', rule: 'network' })).toBe('url');
    expect(fieldOf({ error: 'filter.kinds[0] must be one of event.created, device.created', field: 'filter.kinds[0]', rule: 'enum' })).toBe('filter.kinds[0]');
    const fields = ['url', 'description', 'filter.domains', 'filter.domains[2]', 'filter.event_types[0]', 'filter.device_names', 'filter.kinds[1]', 'enabled', 'filter', 'body', undefined];
    expect(fields.map(webhookInputOf)).toEqual(['url', 'description', 'domains', 'domains', 'eventTypes', 'deviceNames', 'kinds', 'enabled', undefined, undefined, undefined]);
  });
});

describe('console webhook words', () => {
  it('says what a filter matches', () => {
    expect(filterText(webhook.filter)).toBe('event.created, device.created; domains acme.*; event types motion_detected, door_opened');
    expect(filterText({ kinds: ['event.created'] })).toBe('event.created; any domain, event type and device');
    expect(filterText({ kinds: ['event.created'], device_names: ['cam-1'] })).toBe('event.created; devices cam-1');
    expect(filterText({ kinds: [], domains: [], event_types: [], device_names: [] })).toBe('no kind; no domain; no event type; no device');
  });

  it('says whether a webhook is enabled, and why not', () => {
    expect(stateText(webhook)).toBe('enabled');
    expect(stateText({ ...webhook, enabled: false, disabled_reason: 'the receiver answered 410 Gone' })).toBe('disabled: the receiver answered 410 Gone');
    expect(stateText({ ...webhook, enabled: false, disabled_reason: null })).toBe('disabled');
    expect(stateText({ ...webhook, enabled: false, disabled_reason: '' })).toBe('disabled');
  });

  it("says a delivery's last answer: its status code, its error, or none yet", () => {
    expect(answerText(500, null)).toBe('500');
    expect(answerText(503, 'retry after 30 s')).toBe('503: retry after 30 s');
    expect(answerText(null, 'connection refused')).toBe('connection refused');
    expect(answerText(null, null)).toBe('none yet');
  });
});
