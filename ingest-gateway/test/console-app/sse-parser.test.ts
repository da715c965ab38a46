/** The console's SSE parser: the gateway's frames, whatever the chunks they arrive in. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../console/src/sse-parser.js';

const STREAM =
  ': connected\n\n' +
  'id: c1\nevent: event.created\ndata: {"id":"e1"}\n\n' +
  ': keep-alive\n\n' +
  'id: c2\r\nevent: device.created\r\ndata: {"device_name":"a:b"}\r\n\r\n' +
  'event: unauthorized\ndata: {"error":"token revoked"}\n\n';

const EXPECTED = [
  { id: 'c1', event: 'event.created', data: '{"id":"e1"}' },
  { id: 'c2', event: 'device.created', data: '{"device_name":"a:b"}' },
  { id: undefined, event: 'unauthorized', data: '{"error":"token revoked"}' },
];

describe('console SSE parser', () => {
  it('reads id, event and data, skips comments, and keeps a frame without id', () => {
    expect(createSseParser()(STREAM)).toEqual(EXPECTED);
  });

  it('gives the same frames however the text is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 12 }), (cuts) => {
        const parse = createSseParser();
        const at = [0, ...[...cuts].sort((a, b) => a - b), STREAM.length];
        const frames = at.slice(1).flatMap((end, n) => parse(STREAM.slice(at[n], end)));
        expect(frames).toEqual(EXPECTED);
      }),
    );
  });

  it('joins several data lines with a line break, and keeps an unfinished frame for the next chunk', () => {
    const parse = createSseParser();
    expect(parse('id: 7\ndata: a\ndata: b\n')).toEqual([]);
    expect(parse('\n')).toEqual([{ id: '7', event: 'message', data: 'a\nb' }]);
  });
});
