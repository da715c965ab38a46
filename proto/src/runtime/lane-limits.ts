/**
 * Messages one lane handles at once. Our callers keep one outstanding per lane (grpc-lanes-client.ts);
 * the bound is for a caller that writes without reading the answers.
 */
const LANE_MESSAGES = 8;
/** The same for every lane of one connection together. */
const CONNECTION_MESSAGES = 64;

/** One connection's lanes: the messages they handle together, and the lanes paused until that falls. */
interface LaneConnection {
  readonly inFlight: number;
  /** A lane took a message. */
  took(): void;
  /** A message of a lane was answered (or failed): paused lanes of the connection look again. */
  settled(): void;
  /** Called whenever the connection's count falls, until the returned function removes it. */
  onSettled(check: () => void): () => void;
  /** The lane ended (its messages still settle). */
  leave(): void;
}

/** The bounds of the lanes of one server and its connections, by peer address. */
export interface LaneLimits {
  readonly laneMessages: number;
  readonly connectionMessages: number;
  /** Messages in flight on the connection from `peer` (0 when it has no lane). */
  inFlight(peer: string): number;
  join(peer: string): LaneConnection;
}

export function createLaneLimits(options: { laneMessages?: number; connectionMessages?: number } = {}): LaneLimits {
  const connections = new Map<string, { inFlight: number; lanes: number; checks: Set<() => void> }>();
  const connectionMessages = options.connectionMessages ?? CONNECTION_MESSAGES;
  return {
    laneMessages: options.laneMessages ?? LANE_MESSAGES,
    connectionMessages,
    inFlight: (peer) => connections.get(peer)?.inFlight ?? 0,
    join(peer) {
      let state = connections.get(peer);
      if (!state) connections.set(peer, (state = { inFlight: 0, lanes: 0, checks: new Set() }));
      const conn = state;
      conn.lanes++;
      const forget = () => {
        if (conn.lanes === 0 && conn.inFlight === 0 && connections.get(peer) === conn) connections.delete(peer);
      };
      return {
        get inFlight() {
          return conn.inFlight;
        },
        took() {
          conn.inFlight++;
          // At the bound, every lane of the connection stops taking input, not only the one that reached it.
          if (conn.inFlight >= connectionMessages) for (const check of [...conn.checks]) check();
        },
        settled() {
          conn.inFlight--;
          for (const check of [...conn.checks]) check();
          forget();
        },
        onSettled(check) {
          conn.checks.add(check);
          return () => conn.checks.delete(check);
        },
        leave() {
          conn.lanes--;
          forget();
        },
      };
    },
  };
}
