import {
  InterceptingCall,
  ServerInterceptingCall,
  status as Status,
  type Interceptor,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * gRPC metrics in the go-grpc-prometheus family, so the dashboards and alerts written for Go services
 * work unchanged: `grpc_{server,client}_{started,handled,msg_received,msg_sent}_total` and
 * `grpc_{server,client}_handling_seconds`, labelled by grpc_type, grpc_service, grpc_method (and
 * grpc_code once handled). Labels come from the method path only, never from request data.
 */
type Side = 'server' | 'client';
type CallLabels = 'grpc_type' | 'grpc_service' | 'grpc_method';

interface GrpcMetricFamily {
  started: Counter<CallLabels>;
  handled: Counter<CallLabels | 'grpc_code'>;
  received: Counter<CallLabels>;
  sent: Counter<CallLabels>;
  seconds: Histogram<CallLabels>;
}

/** grpc-go's `codes.Code.String()` spellings: the values go-grpc-prometheus puts in grpc_code. */
const GO_CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable',
  'DataLoss', 'Unauthenticated',
];

/** The grpc_code label value, as grpc-go spells it (codes outside the standard 17 keep their number). */
export function grpcCodeLabel(code: number): string {
  return GO_CODE_NAMES[code] ?? `Code(${code})`;
}

/** Same buckets as go-grpc-prometheus's defaults (prom.DefBuckets), so quantiles compare across languages. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function createFamily(side: Side, registry: Registry): GrpcMetricFamily {
  const labelNames = ['grpc_type', 'grpc_service', 'grpc_method'] as const;
  const who = side === 'server' ? 'on the server' : 'by the client';
  const make = (name: string, help: string) => new Counter({ name: `grpc_${side}_${name}`, help, labelNames, registers: [registry] });
  return {
    started: make('started_total', `Total number of RPCs started ${who}.`),
    handled: new Counter({
      name: `grpc_${side}_handled_total`,
      help: `Total number of RPCs completed ${who}, regardless of success or failure.`,
      labelNames: [...labelNames, 'grpc_code'],
      registers: [registry],
    }),
    received: make('msg_received_total', `Total number of RPC stream messages received ${who}.`),
    sent: make('msg_sent_total', `Total number of gRPC stream messages sent ${who}.`),
    seconds: new Histogram({
      name: `grpc_${side}_handling_seconds`,
      help: `Histogram of response latency (seconds) of gRPC that had been application-level handled ${who}.`,
      labelNames,
      buckets: BUCKETS,
      registers: [registry],
    }),
  };
}

interface MethodShape {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
}

/** "/pkg.Service/Method" plus streaming flags → the label set every family shares. */
function labelsOf(method: MethodShape): Record<CallLabels, string> {
  const [, service = 'unknown', name = 'unknown'] = method.path.split('/');
  const type = method.requestStream
    ? method.responseStream
      ? 'bidi_stream'
      : 'client_stream'
    : method.responseStream
      ? 'server_stream'
      : 'unary';
  return { grpc_type: type, grpc_service: service, grpc_method: name };
}

/** Tracks one call: started now; `finish` records the code and latency exactly once. */
function trackCall(family: GrpcMetricFamily, labels: Record<CallLabels, string>) {
  const started = process.hrtime.bigint();
  family.started.inc(labels);
  let done = false;
  return {
    received: () => family.received.inc(labels),
    sent: () => family.sent.inc(labels),
    finish(code: number) {
      if (done) return;
      done = true;
      family.handled.inc({ ...labels, grpc_code: grpcCodeLabel(code) });
      family.seconds.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    },
  };
}

/** A server interceptor recording every call the server answers (health and reflection included). */
export function createServerMetricsInterceptor(registry: Registry): ServerInterceptor {
  const family = createFamily('server', registry);
  return (method, call) => {
    const track = trackCall(family, labelsOf(method));
    return new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMessage: (message, nextMessage) => {
            track.received();
            nextMessage(message);
          },
          // A client that cancels gets no status from us; count the call as CANCELLED, as grpc-go does.
          onCancel: () => track.finish(Status.CANCELLED),
        }),
      sendMessage: (message, next) => {
        track.sent();
        next(message);
      },
      sendStatus: (status, next) => {
        track.finish(status.code);
        next(status);
      },
    });
  };
}

/** A client interceptor recording every call made on a channel (pass it in the channel's `interceptors`). */
export function createClientMetricsInterceptor(registry: Registry): Interceptor {
  const family = createFamily('client', registry);
  return (options, nextCall) => {
    const track = trackCall(family, labelsOf(options.method_definition));
    return new InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) =>
        next(metadata, {
          onReceiveMessage: (message, nextMessage) => {
            track.received();
            nextMessage(message);
          },
          onReceiveStatus: (status, nextStatus) => {
            track.finish(status.code);
            nextStatus(status);
          },
        }),
      sendMessage: (message, next) => {
        track.sent();
        next(message);
      },
    });
  };
}
