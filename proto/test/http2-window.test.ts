import { connect } from 'node:http2';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createGrpcServer } from '../src/runtime/index.js';
import { HTTP2_CONNECTION_WINDOW_BYTES, HTTP2_MAX_FRAME_BYTES, HTTP2_STREAM_WINDOW_BYTES } from '../src/runtime/http2-window.js';

describe('HTTP/2 flow-control windows of our gRPC servers', () => {
  it('a peer may send a whole 1 MiB message per stream, in one DATA frame, and 16 MiB per connection without waiting', async () => {
    const server = createGrpcServer({ logger: pino({ level: 'silent' }) });
    const port = await server.listen('127.0.0.1:0');
    const session = connect(`http://127.0.0.1:${port}`);
    try {
      await new Promise<void>((resolve, reject) => {
        session.once('remoteSettings', () => resolve());
        session.once('error', reject);
      });
      // Both arrive right after the connection's first SETTINGS: a second SETTINGS and a WINDOW_UPDATE.
      const widened = () =>
        session.remoteSettings.initialWindowSize === HTTP2_STREAM_WINDOW_BYTES &&
        session.remoteSettings.maxFrameSize === HTTP2_MAX_FRAME_BYTES &&
        session.state.remoteWindowSize === HTTP2_CONNECTION_WINDOW_BYTES;
      for (const deadline = Date.now() + 2000; !widened() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(session.remoteSettings.initialWindowSize).toBe(HTTP2_STREAM_WINDOW_BYTES);
      expect(session.remoteSettings.maxFrameSize).toBe(HTTP2_MAX_FRAME_BYTES);
      expect(session.state.remoteWindowSize).toBe(HTTP2_CONNECTION_WINDOW_BYTES);
    } finally {
      session.destroy();
      await server.shutdown(1000);
    }
  });
});
