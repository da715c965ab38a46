import { connectivityState, Metadata, status, type ChannelInterface as Channel, type ClientDuplexStream, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError } from '../contract/app-error.js';
import { fromServiceError } from '../contract/grpc-errors.js';

/**
 * A lane's stream is ended and replaced once it is this old and idle. Servers end each connection
 * after a minute (MAX_CONNECTION_AGE_MS) so that callers spread onto new replicas, but a stream lives
 * on its connection until it ends: lanes younger than that keep following the connections.
 */
const MAX_LANE_AGE_MS = 30_000;

/** Settings of a lane pool. */
interface LanePoolOptions {
  /** How long one request waits for its answer; beyond it the request fails as a unary call's deadline would. */
  deadlineMs: number;
  maxLaneAgeMs?: number;
  /** The channel the lanes are opened on: when its connection changes, lanes move to the new one. */
  channel?: Channel;
}

/** Requests sent as messages on open streams; each resolves with its own response. */
interface LanePool<Req, Res> {
  send(request: Req): Promise<Res>;
  /** Streams open now (busy and idle). */
  size(): number;
}

interface Waiting<Req, Res> {
  request: Req;
  resolve(response: Res): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
  /** How many times it was written: a request no server took is sent at most MAX_SENDS times. */
  sends: number;
  /** The lane it was last written on. */
  lane?: Lane<Req, Res>;
}

interface Lane<Req, Res> {
  stream: ClientDuplexStream<Req, Res>;
  openedAt: number;
  /** The channel's connection epoch when it was opened. */
  epoch: number;
  waiting?: Waiting<Req, Res>;
  done: boolean;
}

/**
 * Counts the times the channel's connection stopped being ready. A server's GOAWAY (its connection
 * age, a shutdown) takes the channel out of READY; a stream still open on that closing connection is dropped by grpc-js's
 * next keepalive ping there ("Connection dropped"), so lanes opened before a change are ended as soon
 * as they are idle, and streams live on the closing connection no longer than a unary call would.
 */
function connectionEpoch(channel: Channel | undefined, onChange: () => void): () => number {
  let epoch = 0;
  if (channel === undefined) return () => epoch;
  const watch = (state: connectivityState) => {
    if (state === connectivityState.SHUTDOWN) return;
    channel.watchConnectivityState(state, Infinity, () => {
      const next = channel.getConnectivityState(false);
      // Only a connection that was ready and went: lanes opened while connecting ride the new one.
      if (state === connectivityState.READY && next !== connectivityState.READY) {
        epoch++;
        onChange();
      }
      watch(next);
    });
  };
  watch(channel.getConnectivityState(false));
  return () => epoch;
}

/** A lane's stream events: its answer (to the request waiting on it), or its end. */
function listen<Req, Res>(lane: Lane<Req, Res>, on: { answered(lane: Lane<Req, Res>): void; failed(lane: Lane<Req, Res>, error: unknown, notTaken?: boolean): void }): void {
  lane.stream.on('data', (response: Res) => {
    const waiting = lane.waiting;
    if (waiting === undefined) {
      // An answer nobody asked for: the stream is out of step, so it goes.
      on.failed(lane, undefined);
      lane.stream.cancel();
      return;
    }
    lane.waiting = undefined;
    clearTimeout(waiting.timer);
    if (!lane.done) on.answered(lane);
    waiting.resolve(response);
  });
  // Every status other than OK arrives as 'error' too; OK before an answer means "not taken".
  lane.stream.on('error', (err: ServiceError) => on.failed(lane, fromServiceError(err)));
  lane.stream.on('status', (result: StatusObject) => {
    if (result.code === status.OK) on.failed(lane, new AppError('UNAVAILABLE', 'the backend ended the stream before answering', {}), true);
  });
}

/**
 * Sends of one request at most: the first, and two more after lanes that ended without taking it. A
 * draining server ends every lane it holds, idle or not, so one resend could land on another of its
 * lanes (seen in the container shutdown test: "the backend ended the stream before answering").
 */
const MAX_SENDS = 3;

const deadlineError = (): ServiceError => Object.assign(new Error('Deadline exceeded'), { code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: new Metadata() });

/**
 * The caller's side of a bidirectional-streaming "lane" method (the server's: grpc-lanes-server.ts):
 * a request is written on an idle open stream, or on a new one, and its response is the next message
 * on that stream. One request at a time per stream, so the pool holds as many streams as requests are
 * in flight (the caller bounds that) and answers need no ids. A failure ends the lane it happened on
 * and reaches that request alone, as a unary call's would; a stream the server ended with OK before
 * answering did not take the request (the server guarantees it), which is then sent again on a new
 * stream (at most MAX_SENDS in all), as grpc-js retries a unary call a closing server refused.
 */
export function createLanePool<Req, Res>(open: () => ClientDuplexStream<Req, Res>, options: LanePoolOptions): LanePool<Req, Res> {
  const maxAgeMs = options.maxLaneAgeMs ?? MAX_LANE_AGE_MS;
  // Idle lanes of a connection that changed end at once; busy ones once they answered (reuseOrEnd).
  const epoch = connectionEpoch(options.channel, () => {
    for (const lane of idle.splice(0)) end(lane);
  });
  const idle: Array<Lane<Req, Res>> = [];
  let size = 0;

  /** Ends a lane's use; its waiting request, if any, fails with `error` or is sent again. */
  function retire(lane: Lane<Req, Res>, error: unknown, notTaken = false): void {
    if (lane.done) return;
    lane.done = true;
    size--;
    const at = idle.indexOf(lane);
    if (at >= 0) idle.splice(at, 1);
    const waiting = lane.waiting;
    lane.waiting = undefined;
    if (waiting === undefined) return;
    if (notTaken && waiting.sends < MAX_SENDS) {
      // Idle lanes may sit on the same closing server: end them, and open a new stream, which the
      // channel puts on a connection still taking calls.
      for (const other of idle.splice(0)) end(other);
      write(openLane(), waiting);
      return;
    }
    clearTimeout(waiting.timer);
    waiting.reject(error);
  }

  const current = (lane: Lane<Req, Res>, now: number) => lane.epoch === epoch() && now - lane.openedAt < maxAgeMs;
  // A lane that answered waits for the next request, unless its connection changed or it is too old.
  const reuseOrEnd = (lane: Lane<Req, Res>) => (current(lane, Date.now()) ? idle.push(lane) : end(lane));

  function openLane(): Lane<Req, Res> {
    const lane: Lane<Req, Res> = { stream: open(), openedAt: Date.now(), epoch: epoch(), done: false };
    size++;
    listen(lane, { answered: reuseOrEnd, failed: retire });
    return lane;
  }

  /** Half-closes an idle lane; the server ends it with OK (nothing waits on it). */
  function end(lane: Lane<Req, Res>): void {
    retire(lane, undefined);
    lane.stream.end();
  }

  /** The newest idle lane still current, or a new one; stale idle lanes (an older epoch, or past their age) are ended on the way. */
  function take(): Lane<Req, Res> {
    const now = Date.now();
    for (let lane = idle.pop(); lane !== undefined; lane = idle.pop()) {
      if (current(lane, now)) return lane;
      end(lane);
    }
    return openLane();
  }

  function write(lane: Lane<Req, Res>, waiting: Waiting<Req, Res>): void {
    lane.waiting = waiting;
    waiting.lane = lane;
    waiting.sends++;
    lane.stream.write(waiting.request);
  }

  return {
    send(request) {
      return new Promise<Res>((resolve, reject) => {
        const waiting: Waiting<Req, Res> = { request, resolve, reject, sends: 0, timer: undefined as unknown as NodeJS.Timeout };
        waiting.timer = setTimeout(() => {
          // The lane holding it ends with it (a late answer must not be read as the next request's).
          const holder = waiting.lane!;
          retire(holder, fromServiceError(deadlineError()));
          holder.stream.cancel();
        }, options.deadlineMs);
        write(take(), waiting);
      });
    },
    size: () => size,
  };
}
