// The webhooks scenario's goals and its tables: each goal with what was
// measured, and CPU µs per delivery of every process in each phase.

const RSS_GOAL_MIB = 200;
/** The services whose memory counts: `delivery` is the launcher's webhook sender, a registry replica. */
const SERVICES = ['gateway', 'registry', 'delivery', 'media'];
const num = (v, digits = 0) => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const latencyText = (l) => `p50 ${num(l.p50, 1)} ms, p99 ${num(l.p99, 1)} ms, ${l.missing} of ${num(l.pairs)} missing`;
const latencyMet = (l) => l.p50 <= 100 && l.p99 <= 1000 && l.missing === 0 && l.failed === 0;

/** Each goal: its text, what was measured, and whether it was met. */
export function webhookGoals(r) {
  const { drain, latency, refused, hang, isolation } = r.webhooks;
  const rss = r.maxRssMiB ?? {};
  return [
    ['(a) drain of one webhook', '>= 5,000 deliveries/s, none missing', `${num(drain.rate)}/s (${num(drain.arrived)} in ${num(drain.seconds, 2)} s), ${drain.missing} missing`, drain.rate >= 5000 && drain.missing === 0],
    ['(b) 200 events/s, ten webhooks', '200 -> receiver p50 <= 100 ms, p99 <= 1 s, none missing', latencyText(latency), latencyMet(latency)],
    ['(c) saturating ingest, ten webhooks', '>= 0.7 x without webhooks', `${num(isolation.ratio, 3)} x (rounds ${isolation.rounds.join(', ')}), ${isolation.missing} missing after catch-up`, isolation.ratio >= 0.7 && isolation.missing === 0],
    ['(c) one endpoint refusing', 'the nine others as (b)', latencyText(refused), latencyMet(refused)],
    ['(c) one endpoint never answering', 'the nine others as (b)', latencyText(hang), latencyMet(hang)],
    ['(c) memory, whole scenario', `each service <= ${RSS_GOAL_MIB} MiB RSS`, SERVICES.map((role) => `${role} ${num(rss[role])}`).join(', '), Object.values(rss).every((mib) => mib <= RSS_GOAL_MIB)],
  ];
}

export const webhookGoalsMet = (r) => webhookGoals(r).every(([, , , met]) => met);

const rssText = (m = {}) => SERVICES.map((role) => num(m[role])).join(' / ');

const CPU_ROLES = ['load', 'gateway', 'registry', 'delivery', 'media', 'postgres', 'receivers'];

/** Rows of CPU µs per delivery (the bench's own process is `load`). */
function cpuRows(r) {
  const { drain, latency, refused, hang, isolation } = r.webhooks;
  const rows = [
    ['(a) drain (no ingest)', drain.cpuUsPerDelivery],
    ['(b) 200 events/s, ingest included', latency.cpuUsPerDelivery],
    ['(c) refusing endpoint, ingest included', refused.cpuUsPerDelivery],
    ['(c) silent endpoint, ingest included', hang.cpuUsPerDelivery],
    ...isolation.catchUps.map((c, i) => [`(c) catch-up after round ${i + 1} (no ingest)`, c.cpuUsPerDelivery]),
  ];
  return rows.map(([title, cpu]) => [title, ...CPU_ROLES.map((role) => num(cpu[role])), num(CPU_ROLES.reduce((sum, role) => sum + (cpu[role] ?? 0), 0))]);
}

/** The webhooks scenario's tables as text, with `table` (report.js) rendering them. */
export function webhookTables(r, quick, table) {
  const goals = webhookGoals(r).map(([what, goal, measured, met]) => [what, goal, measured, quick ? '-' : met ? 'PASS' : 'MISS']);
  const catchUps = r.webhooks.isolation.catchUps.map(
    (c, i) => `round ${i + 1}: ${num(c.deliveries)} deliveries caught up ${num(c.seconds, 1)} s after the load ended (${c.missing} missing); deleting the webhooks took ${num(c.deleteSeconds, 1)} s`,
  );
  return [
    table(['webhooks', 'goal', 'measured', 'result'], goals, [0, 1, 2, 3]),
    table(['CPU us per delivery', ...CPU_ROLES.map((role) => (role === 'load' ? 'bench' : role)), 'total'], cpuRows(r)),
    catchUps.join('\n'),
    `max RSS MiB (${SERVICES.join(' / ')}) per phase: ${['drain', 'latency', 'refused', 'hang', 'isolation'].map((p) => `${p} ${rssText(r.webhooks[p].maxRssMiB)}`).join('; ')}`,
  ].join('\n\n');
}
