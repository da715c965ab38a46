import type { ServerHttp2Session } from 'node:http2';
import type { Server } from '@grpc/grpc-js';
import { http2ListenersOf } from './grpc-http2-listeners.js';

/**
 * HTTP/2 flow-control windows of our gRPC servers and channels. Node's default is 64 KiB per
 * stream AND per connection, so a 117 KiB image crossed the gateway→media connection in
 * WINDOW_UPDATE round trips, and 16 images in flight shared one 64 KiB connection window: each
 * image waited for the server's event loop several times (measured on the image load: about a
 * third more images per second with these windows). The memory a peer may buffer stays bounded
 * by the windows per connection, next to the message limits we already allow.
 */
export const HTTP2_STREAM_WINDOW_BYTES = 1024 * 1024;
export const HTTP2_CONNECTION_WINDOW_BYTES = 16 * 1024 * 1024;
/**
 * Largest DATA frame a peer may send us. HTTP/2's default, 16 KiB, cut a 117 KiB image into eight
 * frames, each a header, a callback and a chunk on both sides; interleaved A/B under image load:
 * 1.06-1.18 x images per second, gateway CPU per image down 6-17 %.
 */
export const HTTP2_MAX_FRAME_BYTES = 1024 * 1024;

/** Announces the windows and the frame size to each peer as its session starts. */
function widenSession(session: ServerHttp2Session): void {
  session.settings({ initialWindowSize: HTTP2_STREAM_WINDOW_BYTES, maxFrameSize: HTTP2_MAX_FRAME_BYTES });
  // The connection window is not a setting: it grows by a WINDOW_UPDATE once the session is up.
  const widen = () => {
    if (!session.destroyed) session.setLocalWindowSize(HTTP2_CONNECTION_WINDOW_BYTES);
  };
  if (session.connecting) session.once('connect', widen);
  else widen();
}

/**
 * grpc-js has a channel option for the client's receive window ('grpc-node.flow_control_window')
 * but none for a server's, so the server's HTTP/2 listeners are reached once bindAsync made them
 * (grpc-http2-listeners.ts, which throws if grpc-js keeps them elsewhere).
 */
export function widenServerWindows(server: Server): void {
  for (const listener of http2ListenersOf(server)) {
    if (listener.listeners('session').includes(widenSession)) continue;
    listener.on('session', widenSession);
  }
}
