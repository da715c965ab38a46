// The bench's SSE consumer: as cheap as a consumer can be, because it runs on the same two cores
// as the stack it measures (a real consumer runs elsewhere). node:http's client cost the bench's
// process about 2 µs per frame and watcher, most of it garbage collection: every read is a new
// Buffer, and the load tool's large heap makes the collections it triggers expensive. Here one
// buffer is reused for every read (net `onread`) and the chunked framing is undone in place.
import { connect } from 'node:net';

const FRAME_END = Buffer.from('\n\n');
const READ_BUFFER_BYTES = 256 * 1024;

/**
 * Turns body pieces (valid only during the call) into runs of complete SSE frames for
 * onFrames(buf), copying only the frame that straddles two pieces.
 */
function frameSplitter(onFrames) {
  let carry = Buffer.alloc(0);
  return (piece) => {
    if (carry.length > 0) {
      // The frame's end may straddle the two pieces ("\n" | "\n").
      const straddles = carry[carry.length - 1] === 10 && piece[0] === 10;
      const end = straddles ? 0 : piece.indexOf(FRAME_END);
      if (end === -1) {
        carry = Buffer.concat([carry, piece]);
        return;
      }
      const through = straddles ? 1 : end + FRAME_END.length;
      onFrames(Buffer.concat([carry, piece.subarray(0, through)]));
      carry = Buffer.alloc(0);
      piece = piece.subarray(through);
    }
    const last = piece.lastIndexOf(FRAME_END);
    const complete = last === -1 ? 0 : last + FRAME_END.length;
    if (complete > 0) onFrames(piece.subarray(0, complete));
    if (complete < piece.length) carry = Buffer.from(piece.subarray(complete));
  };
}

/**
 * GET `url` as an SSE stream over a raw socket; resolves once the answer's head says 200 and
 * chunked, then hands runs of complete frames to onFrames(buf) (buf is reused after the call).
 * Answers { close() } (resolves once the socket closed).
 */
export function openSseClient(url, headers, onFrames) {
  const { hostname, port, pathname, search, host } = new URL(url);
  const body = frameSplitter(onFrames);
  return new Promise((resolve, reject) => {
    let state = 'head';
    let text = ''; // the head, or a chunk-size line, read so far
    let need = 0; // bytes left in the current chunk
    const onread = (n, buf) => {
      for (let i = 0; i < n && state !== 'done'; ) {
        if (state === 'data') {
          const take = Math.min(need, n - i);
          body(buf.subarray(i, i + take));
          i += take;
          need -= take;
          if (need === 0) state = 'crlf';
          continue;
        }
        // head, chunk-size line, or the CRLF after a chunk: text up to a line end
        const nl = buf.indexOf(10, i);
        const to = nl === -1 || nl >= n ? n : nl + 1;
        text += buf.toString('latin1', i, to);
        i = to;
        if (!text.endsWith('\n')) continue;
        if (state === 'head') {
          if (text.endsWith('\r\n\r\n')) {
            if (!/^HTTP\/1\.1 200 /.test(text) || !/\r\ntransfer-encoding: chunked\r\n/i.test(text)) {
              socket.destroy();
              return reject(new Error(`stream answered ${text.split('\r\n')[0]} (chunked: ${/chunked/i.test(text)})`));
            }
            state = 'size';
            text = '';
            resolve(api);
          }
        } else if (state === 'size') {
          need = parseInt(text, 16);
          if (!(need >= 0)) return void socket.destroy(new Error(`not a chunk size: ${JSON.stringify(text.slice(0, 20))}`));
          text = '';
          state = need > 0 ? 'data' : 'done';
        } else {
          text = '';
          state = 'size';
        }
      }
    };
    const socket = connect({ host: hostname, port: Number(port), onread: { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: onread } });
    const closed = new Promise((done) => socket.once('close', done));
    const api = { close: () => (socket.destroy(), closed) };
    socket.once('error', reject);
    // Closed before the answer's head (after it, a rejection changes nothing).
    socket.once('close', () => reject(new Error('the stream closed before its answer')));
    const lines = Object.entries({ ...headers, host, accept: 'text/event-stream' }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\n${lines.join('')}\r\n`);
  });
}
