import type { handleBidiStreamingCall, ServerDuplexStream } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { acceptedRequestId, contextOf, type CallContext } from './call-context.js';
import { logCall, type CallLogEntry } from './grpc-call-log.js';
import type { LaneLimits } from './lane-limits.js';
import { toStatusObject } from '../contract/grpc-errors.js';
import { assertUtf8Request } from '../contract/strict-utf8.js';

/** One request message in, one response message out: a unary handler's shape, per message. */
type MessageHandler = (request: unknown, ctx: CallContext) => Promise<unknown>;

/**
 * A message's own request id (a `request_id` field, as StoreImageStreamRequest has: one stream carries
 * many HTTP requests) when acceptedRequestId takes it, as the metadata's; otherwise the stream's.
 */
function contextOfMessage(request: unknown, ctx: CallContext): CallContext {
  const own = acceptedRequestId((request as { requestId?: unknown }).requestId);
  return own === undefined ? ctx : { ...ctx, requestId: own };
}

/**
 * Input stops while the lane or its connection handles its bound of messages, or an answer waits
 * for the caller to read: a caller that writes and never reads fills its own buffers, not ours.
 */
function gateOf(call: ServerDuplexStream<unknown, unknown>, limits: LaneLimits, ended: () => boolean) {
  const conn = limits.join(call.getPeer());
  let handling = 0;
  let paused = false;
  let waitingDrain = false;
  const check = () => {
    const full = handling >= limits.laneMessages || conn.inFlight >= limits.connectionMessages || waitingDrain;
    if (ended() || full === paused) return;
    paused = full;
    if (paused) call.pause();
    else call.resume();
  };
  const unwatch = conn.onSettled(check);
  const drained = () => {
    waitingDrain = false;
    check();
  };
  let left = false;
  return {
    took(now: number) {
      handling = now;
      conn.took();
      check();
    },
    settled(now: number) {
      handling = now;
      conn.settled();
      check();
    },
    /** A write asked to wait: one 'drain' listener covers every write until the buffer empties. */
    undrained() {
      if (waitingDrain) return;
      waitingDrain = true;
      check();
      call.once('drain', drained);
    },
    leave() {
      if (left) return;
      left = true;
      unwatch();
      call.off('drain', drained);
      conn.leave();
    },
  };
}

/**
 * A bidirectional-streaming method served as a "lane" (the caller's side is grpc-lanes-client.ts):
 * each request message is handled as a unary call would be (UTF-8 check, the handler, a log entry
 * per message, under the message's own request id when it carries one) and answered by one response
 * message, in the order the requests arrived, while several may be handled at once. Why: a unary
 * call costs both sides several times what a message on an open stream costs (`npm run bench:grpc`).
 *
 * A message whose handler fails ends the stream with that failure's status, as the unary call would
 * have failed; messages the stream took before it are still answered first. (Our callers keep one
 * request outstanding per stream: a caller sending more would not learn what became of those after
 * a failed one.) The stream ends with OK
 * once the caller half-closed, or once `closing` aborts (the server shuts down), and everything it
 * took is answered; messages arriving after that are never handled, so a caller left without an
 * answer knows its request was not processed.
 */
export function laneHandler(logger: Logger, service: string, method: string, handler: MessageHandler, options: { closing?: AbortSignal; limits: LaneLimits }): handleBidiStreamingCall<unknown, unknown> {
  const { closing, limits } = options;
  return (call) => {
    const { ctx, settled } = contextOf(call);
    let ended = false;
    let callerDone = false;
    let handling = 0;
    const gate = gateOf(call, limits, () => ended);
    // Answers leave in request order: each waits for the one before it.
    let answered: Promise<void> = Promise.resolve();

    const end = (err?: unknown) => {
      if (ended) return;
      ended = true;
      settled();
      gate.leave();
      closing?.removeEventListener('abort', endWhenIdle);
      // grpc-js sends a status (not a bare stream reset) when 'error' is emitted with a status object.
      if (err === undefined) call.end();
      else call.emit('error', toStatusObject(err));
    };
    function endWhenIdle() {
      if (handling === 0 && (callerDone || closing?.aborted)) end();
    }

    call.on('data', (request: unknown) => {
      if (ended || closing?.aborted) return;
      handling++;
      gate.took(handling);
      const messageCtx = contextOfMessage(request, ctx);
      const entry: CallLogEntry = { service, method, started: process.hrtime.bigint(), requestId: messageCtx.requestId };
      const result = Promise.resolve().then(() => {
        assertUtf8Request(request);
        return handler(request, messageCtx);
      });
      answered = answered
        .then(() => result)
        .then(
          (response) => {
            logCall(logger, entry, undefined);
            if (!ended && !call.write(response)) gate.undrained();
          },
          (err: unknown) => {
            logCall(logger, entry, err);
            end(err);
          },
        )
        .finally(() => {
          handling--;
          gate.settled(handling);
          endWhenIdle();
        });
    });
    call.on('end', () => {
      callerDone = true;
      endWhenIdle();
    });
    // The caller cancelled or the connection went: nothing more can be answered.
    ctx.signal.addEventListener('abort', () => {
      ended = true;
      gate.leave();
      closing?.removeEventListener('abort', endWhenIdle);
    }, { once: true });
    if (closing?.aborted) end();
    else closing?.addEventListener('abort', endWhenIdle);
  };
}
