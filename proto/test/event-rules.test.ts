import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkCharacters,
  checkIdentityCharacters,
  checkNfc,
  isNfc,
  textProblem,
  type EventText,
} from '../src/contract/event-rules.js';
import {
  checkEventCharacters,
  checkObjectIdOutsideDomain,
  checkUtf8,
  fullObjectId,
  identityConflict,
  isBlank,
  propertyField,
  ruleError,
} from '../src/contract/index.js';

describe('textProblem', () => {
  it('finds NUL and lone surrogates, and nothing in well-formed text', () => {
    expect(textProblem('a\u0000b')).toBe('nul');
    for (const s of ['\ud800', 'x\udbff', '\udc00y', '\udfff', '\ude00\ud83d']) expect(textProblem(s)).toBe('lone-surrogate');
    for (const s of ['', 'plain', '😀', '\ud83d\ude00', '\ufffd', 'caméra']) expect(textProblem(s)).toBeUndefined();
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => textProblem(s.replaceAll('\u0000', '')) === undefined));
  });

  it('names the field and the rule', () => {
    expect(() => checkCharacters('source.object_id', 'o\ud800')).toThrow(
      expect.objectContaining({ details: { field: 'source.object_id', rule: 'characters' }, message: expect.stringContaining('source.object_id must not contain lone surrogates') }),
    );
    expect(() => checkCharacters('props', '\u0000', true)).toThrow('props keys must not contain NUL characters (U+0000)');
  });
});

describe('ruleError', () => {
  // The errors are built inside the test, not in the table: a fault there must fail a test, not the file's collection.
  it.each([
    ['required', () => ruleError.required('source'), 'source is required'],
    ['not-empty', () => ruleError.notEmpty('source'), 'source must not be empty'],
    ['max-length', () => ruleError.maxLength('source', 7), 'source must be at most 7 characters'],
    ['key-max-length', () => ruleError.keyMaxLength('source', 7), 'source keys must be at most 7 characters'],
    ['max-items', () => ruleError.maxItems('source', 7), 'source must have at most 7 items'],
    ['max-properties', () => ruleError.maxProperties('source', 7), 'source must have at most 7 properties'],
    ['contains-domain', () => ruleError.containsDomain('source', 'a"b'), 'source must not contain the domain (it must not start with "a\\"b.")'],
  ])('builds rule %s: INVALID_ARGUMENT naming the field, the rule and the words both services use', (rule, build, message) => {
    expect(build()).toMatchObject({ code: 'INVALID_ARGUMENT', message, details: { field: 'source', rule } });
  });
});

describe('small shared rules', () => {
  it('isBlank: only whitespace (any kind) and characters that show nothing is blank', () => {
    const invisible = ['\u00ad', '\u034f', '\u115f', '\u1160', '\u180e', '\u200b', '\u200c', '\u200d', '\u2060', '\u2064', '\u3164', '\ufeff', '\uffa0'];
    for (const blank of ['', ' ', '\t\n', '\u00a0\u3000', ...invisible, ` ${invisible.join('')}\u00a0`]) expect(isBlank(blank), JSON.stringify(blank)).toBe(true);
    for (const text of ['a', ' a ', '\u200ba', 'a\u3164', '\u00ac', '\u2065', '\u200e', '!']) expect(isBlank(text), JSON.stringify(text)).toBe(false);
  });

  it('checkIdentityCharacters: refuses C0/C1 controls and bidirectional formatting, nothing else', () => {
    for (const bad of ['a\u0000', 'a\u001b[31m', 'a\rb', 'a\nb', '\tx', 'x\u007f', 'x\u0085', 'x\u009f', 'x\u061c', 'x\u200e', 'x\u200f', 'x\u202a', 'x\u202e', 'x\u2066', 'x\u2069']) {
      expect(() => checkIdentityCharacters('source.device_name', bad), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ message: 'source.device_name must not contain control or bidirectional formatting characters', details: { field: 'source.device_name', rule: 'characters' } }),
      );
    }
    for (const good of ['cam-7', 'caméra', 'x\u00a0y', 'x\u00a0', 'x\u200d', 'x\u2065', 'x\u202f', 'x\u0020', 'x~', 'x\u00a0\u00ff', '😀']) {
      expect(() => checkIdentityCharacters('f', good), JSON.stringify(good)).not.toThrow();
    }
  });

  it('checkEventCharacters applies the control rule to the four identities only', () => {
    const event = (over: Record<string, string>) => ({
      source: { deviceName: 'd', objectId: 'o', objectDomain: 'x.y', objectName: 'n', objectType: 't', ...over },
      eventType: { eventType: over.eventType ?? 'e', displayName: 'D', displayDescription: 'dd' },
      properties: [{ key: 'k', value: 'a\u001bb' }],
      images: [],
      videoClips: [],
    });
    for (const [key, field] of [['deviceName', 'source.device_name'], ['objectId', 'source.object_id'], ['objectDomain', 'source.object_domain'], ['eventType', 'event.event_type.event_type']]) {
      expect(() => checkEventCharacters(event({ [key!]: 'a\u202eb' })), key).toThrow(expect.objectContaining({ details: { field, rule: 'characters' } }));
    }
    expect(() => checkEventCharacters(event({ objectName: 'a\u202eb\r\n', objectType: '\u001b' }))).not.toThrow();
  });

  it('checkObjectIdOutsideDomain: refuses an id starting with "{domain}." only', () => {
    expect(() => checkObjectIdOutsideDomain('f', 'acme.cam.7', 'acme.cam')).toThrow(
      expect.objectContaining({ message: 'f must not contain the domain (it must not start with "acme.cam.")', details: { field: 'f', rule: 'contains-domain' } }),
    );
    for (const id of ['acme.cam', 'acme.camera', '7.acme.cam.', 'x.acme.cam.7']) expect(() => checkObjectIdOutsideDomain('f', id, 'acme.cam')).not.toThrow();
  });

  it('names a property value and the full object id as the spec writes them', () => {
    expect(propertyField('events[1].', 'zone')).toBe('events[1].event.event_data.event_additional_properties.zone');
    expect(fullObjectId('acme.cam', 'ch.1')).toBe('acme.cam.ch.1');
  });
});

describe('checkUtf8', () => {
  it('names another field in its own words', () => {
    expect(() => checkUtf8(Buffer.from([0xff]), 'data')).toThrow(expect.objectContaining({ message: 'data is not valid UTF-8', details: { field: 'data', rule: 'encoding' } }));
    expect(() => checkUtf8(Buffer.from('ok'), 'data')).not.toThrow();
  });

  it('accepts UTF-8 and refuses everything a lenient decoder would turn into U+FFFD', () => {
    expect(() => checkUtf8(Buffer.from('{"a":"caméra 😀 \ufffd"}'))).not.toThrow();
    for (const bad of [[0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]]) {
      expect(() => checkUtf8(Buffer.from(bad))).toThrow(expect.objectContaining({ message: 'body is not valid UTF-8', details: { field: 'body', rule: 'encoding' } }));
    }
  });
});

describe('identityConflict', () => {
  it('refuses a second split of one full id with ALREADY_EXISTS naming the existing object', () => {
    const err = identityConflict({ objectDomain: 'col.a.b', objectId: 'c' }, { objectDomain: 'col.a', objectId: 'b.c' });
    expect(err).toMatchObject({ code: 'ALREADY_EXISTS', details: { field: 'source.object_id', rule: 'identity-conflict' } });
    expect(err?.message).toBe(
      'object "col.a.b.c" already exists with object_domain "col.a.b" and object_id "c": source.object_domain "col.a" with source.object_id "b.c" would give another object the same identity',
    );
    expect(identityConflict({ objectDomain: 'col.a', objectId: 'b.c' }, { objectDomain: 'col.a', objectId: 'b.c' })).toBeUndefined();
    // Either part differing is another object.
    expect(identityConflict({ objectDomain: 'col.a', objectId: 'b.c' }, { objectDomain: 'col.a', objectId: 'b.d' })).toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(identityConflict({ objectDomain: 'col.a', objectId: 'b.c' }, { objectDomain: 'col.b', objectId: 'b.c' })).toMatchObject({ code: 'ALREADY_EXISTS' });
  });
});

describe('NFC identities', () => {
  const NFD = 'came\u0301ra';

  it('agrees with String.prototype.normalize on every string', () => {
    for (const s of ['', 'camera-01', 'caméra', 'Ωmega', '한국', '😀', '\u1e9b\u0323']) expect(isNfc(s)).toBe(true);
    for (const s of [NFD, '\u0041\u030a', '\u1100\u1161', '\u212b', 'x\u0344', '\u1e9b\u0323'.normalize('NFD')]) expect(isNfc(s)).toBe(false);
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => isNfc(s) === (s.normalize('NFC') === s)));
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => isNfc(s.normalize('NFD')) === (s.normalize('NFD') === s.normalize('NFC'))));
  });

  it('takes the fast path only where it is exact: every pair of code units below U+0300 is NFC', () => {
    // Exhaustive over the fast path's range, singles and pairs (all of them have combining class 0,
    // so nothing reorders and only a neighbour could compose): widening the range fails here.
    for (let a = 0; a < 0x300; a++) {
      const one = String.fromCharCode(a);
      expect(one.normalize('NFC')).toBe(one);
      for (let b = 0; b < 0x300; b++) {
        const two = one + String.fromCharCode(b);
        if (two.normalize('NFC') !== two) throw new Error(`U+${a.toString(16)} U+${b.toString(16)} is not NFC`);
      }
    }
    expect(isNfc('A\u030a')).toBe(false); // A + ring above composes to Å: past the range, normalize decides
    expect(isNfc('\u00c5')).toBe(true);
  });

  it('refuses with rule nfc naming the field', () => {
    expect(() => checkNfc('source.device_name', NFD)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: 'source.device_name must be Unicode NFC-normalized', details: { field: 'source.device_name', rule: 'nfc' } }),
    );
    expect(() => checkNfc('source.device_name', NFD.normalize('NFC'))).not.toThrow();
  });

  const event = (change: (e: EventText) => void): EventText => {
    const e = {
      source: { deviceName: 'd', objectId: 'o', objectDomain: 'dom', objectName: 'n', objectType: 't' },
      eventType: { eventType: 'e', displayName: 'E', displayDescription: 'D' },
      properties: [{ key: 'k', value: 'v' }],
      images: ['https://x/i'],
      videoClips: ['https://x/v'],
    };
    change(e);
    return e;
  };

  it.each([
    ['source.device_name', (e: EventText) => (e.source.deviceName = NFD)],
    ['source.object_id', (e: EventText) => (e.source.objectId = NFD)],
    ['source.object_domain', (e: EventText) => (e.source.objectDomain = `acme.${NFD}`)],
    ['event.event_type.event_type', (e: EventText) => (e.eventType.eventType = NFD)],
  ])('refuses a decomposed %s, in a batch with its prefix', (field, change) => {
    expect(() => checkEventCharacters(event(change))).toThrow(expect.objectContaining({ details: { field, rule: 'nfc' } }));
    expect(() => checkEventCharacters(event(change), 'events[2].')).toThrow(`events[2].${field} must be Unicode NFC-normalized`);
  });

  it('leaves the other fields as sent: names, descriptions, properties and URLs may be decomposed', () => {
    const decomposed = event((e) => {
      e.source.objectName = NFD;
      e.source.objectType = NFD;
      e.eventType.displayName = NFD;
      e.eventType.displayDescription = NFD;
      e.properties = [{ key: NFD, value: NFD }];
      e.images = [`https://x/${NFD}`];
      e.videoClips = [`https://x/${NFD}`];
    });
    expect(() => checkEventCharacters(decomposed)).not.toThrow();
  });

  it('reports the character rule first when an identity has both problems', () => {
    expect(() => checkEventCharacters(event((e) => (e.source.deviceName = `${NFD}\u0000`)))).toThrow(expect.objectContaining({ details: { field: 'source.device_name', rule: 'characters' } }));
  });
});

describe('checkEventCharacters', () => {
  const clean = (): EventText => ({
    source: { deviceName: 'd', objectId: 'o', objectDomain: 'dom', objectName: 'n', objectType: 't' },
    eventType: { eventType: 'e', displayName: 'E', displayDescription: 'D' },
    properties: [
      { key: 'k', value: 'v' },
      { key: 'zone', value: 'north' },
    ],
    images: ['https://x/1', 'https://x/2'],
    videoClips: ['https://x/3', 'https://x/4'],
  });
  const PROPS = 'event.event_data.event_additional_properties';

  it.each([
    ['source.object_name', (e: EventText) => (e.source.objectName = 'n\u0000')],
    ['source.object_type', (e: EventText) => (e.source.objectType = '\ud800')],
    ['event.event_type.display_name', (e: EventText) => (e.eventType.displayName = '\u0000')],
    ['event.event_type.display_description', (e: EventText) => (e.eventType.displayDescription = '\udfff')],
    [`${PROPS} keys`, (e: EventText) => (e.properties = [...e.properties, { key: 'k\u0000', value: 'v' }])],
    [`${PROPS}.zone`, (e: EventText) => (e.properties = [{ key: 'k', value: 'v' }, { key: 'zone', value: '\u0000' }])],
    ['event.event_data.images[1]', (e: EventText) => (e.images = ['https://x/1', 'https://x/\ud800'])],
    ['event.event_data.video_clips[1]', (e: EventText) => (e.videoClips = ['https://x/3', 'https://x/\u0000'])],
  ])('checks %s, named with the batch prefix', (named, change) => {
    const event = clean();
    expect(() => checkEventCharacters(event, 'events[4].')).not.toThrow();
    change(event);
    let err: unknown;
    try {
      checkEventCharacters(event, 'events[4].');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', details: { rule: 'characters' }, message: expect.stringMatching(new RegExp(`^events\\[4\\]\\.${named.replace(/[.[\]]/g, '\\$&')} must not contain `)) });
    expect((err as { details: { field: string } }).details.field).toBe(`events[4].${named.replace(/ keys$/, '')}`);
  });
});
