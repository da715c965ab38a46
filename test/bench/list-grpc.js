// ListEvents over gRPC, as the other platform services call the registry (the goal: "ListEvents for
// one device's latest 100 events on a database holding 10 M events: p99 <= 20 ms"). One caller,
// calls in turn: the latency of a call, without the gateway's HTTP and JSON (the `list` scenario
// measures those, with 8 connections). CPU per call of the registry and Postgres, from /proc.
import { registry } from '../../proto/dist/src/contract/index.js';
import { callUnary, createGrpcClient } from '../../proto/dist/src/runtime/index.js';
import { percentile } from './load.js';
import { cpuDelta, cpuSnapshot } from './processes.js';

export async function listGrpcScenario(ctx, stack, target) {
  const client = createGrpcClient(registry.RegistryServiceClient, stack.registryAddr);
  const list = (n) =>
    callUnary(client.listEvents.bind(client), {
      filter: { deviceName: `bench-hist-${(n * 7) % 1000}`, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '' },
      pageSize: 100,
      pageToken: '',
      order: registry.SortOrder.SORT_ORDER_UNSPECIFIED,
      orderBy: registry.EventOrderBy.EVENT_ORDER_BY_UNSPECIFIED,
    }, { deadlineMs: 10_000, requestId: `bench-list-${n}` });
  try {
    for (let n = 0; n < 50; n++) await list(n); // connection, JIT and the registry's prepared statements
    const latencies = [];
    let failed = 0;
    let short = 0;
    const before = cpuSnapshot(target.roles);
    const tool = process.cpuUsage();
    const started = performance.now();
    for (let n = 50; performance.now() - started < ctx.seconds * 1000; n++) {
      const at = performance.now();
      try {
        const { events } = await list(n);
        if (events.length !== 100) short++;
        latencies.push(performance.now() - at);
      } catch {
        failed++;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(tool);
    const cpuUs = { load: used.user + used.system, ...cpuDelta(before, cpuSnapshot(target.roles)) };
    const ok = latencies.length;
    latencies.sort((a, b) => a - b);
    return {
      connections: 1, seconds, ok, rps: ok / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99),
      // An answer without 100 events counts as a failed call (the seeded devices have 10,000 each).
      failed: failed + short, non2xx: short, errors: failed, timeouts: 0, sent: ok + failed, unanswered: 0, failures: [],
      cpuUs, cpuUsPerEvent: Object.fromEntries(Object.entries(cpuUs).map(([role, us]) => [role, ok > 0 ? Math.round(us / ok) : null])),
    };
  } finally {
    client.close();
  }
}
