/**
 * A caller of a bidirectional gRPC method (a lane) that writes request messages and never reads an
 * answer: a raw HTTP/2 stream (node:http2) whose response side is paused from the start, so once
 * the server filled the stream's receive window (64 KiB, HTTP/2's default) no WINDOW_UPDATE opens
 * it again. A grpc-js client would not do: it decodes 16 messages ahead of its consumer and, as
 * createGrpcClient makes it, announces a 16 MiB window, which hides how much the server answers.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';

/** HTTP/2's default receive window: what the server may send before the caller reads. */
const RECEIVE_WINDOW_BYTES = 65_535;

/** One gRPC message on the wire: not compressed, its length, its bytes. */
function frame(message: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

export interface NonReader {
  /** Messages written so far (handed to the HTTP/2 stream). */
  readonly written: number;
  /**
   * Writes `count` messages made by `message(n)`, as fast as the stream takes them: after a write
   * the stream wants no more of, the next waits for 'drain', so what the caller itself holds stays
   * bounded and `written` stops where the server stops taking input.
   */
  feed(count: number, message: (n: number) => Uint8Array): Promise<void>;
  close(): void;
}

/** Resolves at the stream's next 'drain' or its 'close', leaving no listener behind either way. */
function drainedOrClosed(stream: ClientHttp2Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}

/** Opens `path` (e.g. "/dynamic_events.media.v1.MediaService/StoreImageStream") on the server at `address`. */
export function openNonReader(address: string, path: string): NonReader {
  const session: ClientHttp2Session = connect(`http://${address}`, { settings: { initialWindowSize: RECEIVE_WINDOW_BYTES } });
  session.on('error', () => {});
  const stream: ClientHttp2Stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: path,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.on('error', () => {});
  stream.pause();
  let written = 0;
  let closed = false;
  return {
    get written() {
      return written;
    },
    async feed(count, message) {
      for (let n = 0; n < count && !closed; n++) {
        const more = stream.write(frame(message(n)));
        written++;
        if (!more) await drainedOrClosed(stream);
      }
    },
    close() {
      closed = true;
      stream.close(constants.NGHTTP2_CANCEL);
      session.destroy();
    },
  };
}

/**
 * Resolves once `count` is above 0 and the same at five looks 50 ms apart: what the caller wrote,
 * or what the server took, stopped moving. Bounds are asserted after it, never how soon it came.
 */
export async function stoppedMoving(count: () => number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  for (let same = 0; same < 5; ) {
    if (Date.now() > deadline) throw new Error(`still moving after ${timeoutMs} ms (at ${count()})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = count();
    same = now > 0 && now === last ? same + 1 : 0;
    last = now;
  }
}
