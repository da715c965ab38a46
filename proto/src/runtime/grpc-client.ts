import {
  credentials,
  Metadata,
  type CallOptions,
  type ChannelOptions,
  type Client,
  type ClientReadableStream,
  type ClientUnaryCall,
  type Interceptor,
  type ServiceError,
} from '@grpc/grpc-js';
import { AUTHORIZATION_KEY, REQUEST_ID_KEY } from './call-context.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../contract/limits.js';
import { fromServiceError } from '../contract/grpc-errors.js';
import { HTTP2_CONNECTION_WINDOW_BYTES } from './http2-window.js';

type ClientConstructor<C> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: Partial<ChannelOptions> & { interceptors?: Interceptor[] },
) => C;

export interface ClientOptions {
  /** Largest message sent or received; must match the server's limit for large images. */
  maxMessageBytes?: number;
  /** Largest message received, when replies may be larger than requests; defaults to maxMessageBytes. */
  maxReceiveMessageBytes?: number;
  /** Run on every call, e.g. createClientMetricsInterceptor (one per metrics registry, shared by all channels). */
  interceptors?: Interceptor[];
  /**
   * The channel's receive window, per stream and per connection (default HTTP2_CONNECTION_WINDOW_BYTES):
   * what a response stream whose consumer is not reading may bring in beyond its next message.
   */
  receiveWindowBytes?: number;
}

/**
 * Per-call balancing over every address the target resolves to. With `dns:///registry-headless:50051`
 * (a headless Service) each call goes to the next ready pod; with a ClusterIP Service the one long-lived
 * HTTP/2 connection would pin all traffic to a single pod. With one address it changes nothing.
 */
const ROUND_ROBIN_SERVICE_CONFIG = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/** The channel settings every client of ours uses (the health checker too, so it probes the same pods). */
export function channelOptions(options: ClientOptions = {}): Partial<ChannelOptions> & { interceptors?: Interceptor[] } {
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  return {
    'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? max,
    'grpc.max_send_message_length': max,
    // Keep the channel warm between bursts; pods behind a Service stay reachable without reconnect latency.
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.service_config': ROUND_ROBIN_SERVICE_CONFIG,
    // Our receive window per connection (replies, image chunks); servers widen theirs (http2-window.ts).
    'grpc-node.flow_control_window': options.receiveWindowBytes ?? HTTP2_CONNECTION_WINDOW_BYTES,
    // Pods come and go during rollouts and scaling: re-resolve DNS at most this often when asked to.
    'grpc.dns_min_time_between_resolutions_ms': 5_000,
    ...(options.interceptors ? { interceptors: options.interceptors } : {}),
  };
}

/** Creates a generated grpc-js client for `host:port` or `dns:///host:port` on a plaintext channel (in-cluster traffic). */
export function createGrpcClient<C extends Client>(Ctor: ClientConstructor<C>, address: string, options: ClientOptions = {}): C {
  return new Ctor(address, credentials.createInsecure(), channelOptions(options));
}

/** Per-call settings: a deadline always (no call may hang forever) and the request id to propagate. */
interface CallSettings {
  deadlineMs: number;
  requestId?: string;
  /** The internal credential (REGISTRY_INTERNAL_TOKEN) TokenService needs, sent as `authorization: Bearer …`. */
  credential?: string;
  /** Streams only: aborting cancels the call at once, even while waiting for a stalled server. */
  signal?: AbortSignal;
}

function metadataOf(settings: CallSettings): Metadata {
  const metadata = new Metadata();
  if (settings.requestId) metadata.set(REQUEST_ID_KEY, settings.requestId);
  if (settings.credential !== undefined) metadata.set(AUTHORIZATION_KEY, `Bearer ${settings.credential}`);
  return metadata;
}

/** A generated unary method in callback style. */
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a unary method and resolves with its response; failures reject with an AppError. */
export function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, settings: CallSettings): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, metadataOf(settings), { deadline: Date.now() + settings.deadlineMs }, (error, response) => {
      if (error) reject(fromServiceError(error));
      else resolve(response);
    });
  });
}

type StreamMethod<Req, Res> = (request: Req, metadata: Metadata, options: Partial<CallOptions>) => ClientReadableStream<Res>;

/**
 * Calls a server-streaming method; iteration yields messages, failures throw an AppError. When
 * `settings.signal` aborts (the consumer went away) the call is cancelled and iteration just ends.
 */
/**
 * A grpc-js response stream is an object-mode Readable, which decodes 16 messages ahead of its
 * consumer whatever their size: with 4 MiB Watch messages that is 64 MiB per stream the consumer has
 * not asked for, times every stream of a resume storm. A message is decoded when the consumer asks
 * for it; until then the bytes wait in HTTP/2 flow control (its windows bound them per connection).
 * Node reads the mark from the stream's state at each read; grpc-js has no option for it.
 */
function readOnDemand(stream: object): void {
  const state = (stream as { _readableState?: { highWaterMark?: unknown } })._readableState;
  if (state && typeof state.highWaterMark === 'number') state.highWaterMark = 0;
}

export async function* callStream<Req, Res>(method: StreamMethod<Req, Res>, request: Req, settings: CallSettings): AsyncGenerator<Res> {
  const stream = method(request, metadataOf(settings), { deadline: Date.now() + settings.deadlineMs });
  readOnDemand(stream);
  const cancel = () => stream.cancel();
  settings.signal?.addEventListener('abort', cancel, { once: true });
  try {
    if (settings.signal?.aborted) return;
    for await (const message of stream) yield message as Res;
  } catch (err) {
    if (settings.signal?.aborted) return;
    throw fromServiceError(err as ServiceError);
  } finally {
    settings.signal?.removeEventListener('abort', cancel);
    // A consumer that stops early (client went away) must not leave the call running.
    stream.cancel();
  }
}
