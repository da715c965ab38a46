// What the webhooks scenario's phases share: the webhooks made and removed through the admin API,
// and CPU µs per delivery of every process.
import { admin } from './auth.js';
import { cpuDelta, cpuSnapshot } from './processes.js';

/** Webhooks of the latency and isolation phases, each with a receiver of its own. */
export const HOOKS = 10;

/** Creates a webhook matching every event at `url`; answers its id. */
export const createHook = async (base, url, enabled = true) => (await admin(base, 'POST', '/webhooks', { url, enabled, description: 'bench' }, 201)).id;
export const deleteHook = (base, id) => admin(base, 'DELETE', `/webhooks/${id}`);

/** CPU µs of every role (and of the bench's own process, `load`) from here to the call of the answer. */
export function cpuMeter(roles) {
  const before = cpuSnapshot(roles);
  const tool = process.cpuUsage();
  return (count) => {
    const used = process.cpuUsage(tool);
    const cpu = { load: used.user + used.system, ...cpuDelta(before, cpuSnapshot(roles)) };
    return Object.fromEntries(Object.entries(cpu).map(([role, us]) => [role, count > 0 ? Math.round(us / count) : null]));
  };
}

