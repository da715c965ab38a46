// CPU and memory of the stack's processes, read from /proc (Linux): utime+stime in clock ticks.
import { readFileSync, readdirSync } from 'node:fs';

const TICK_US = 1e6 / 100; // CLK_TCK is 100 on Linux/x86_64

const read = (path) => { try { return readFileSync(path, 'utf8'); } catch { return ''; } };

/** CPU time (µs) of a process: user + system. */
export function cpuUs(pid) {
  const stat = read(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * TICK_US;
}

export function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
}

function children(pid) {
  return readdirSync(`/proc/${pid}/task`, { withFileTypes: true }).flatMap((t) => read(`/proc/${pid}/task/${t.name}/children`).trim().split(/\s+/).filter(Boolean).map(Number));
}

function descendants(pid) {
  const all = [];
  const stack = [pid];
  while (stack.length) for (const c of children(stack.pop())) { all.push(c); stack.push(c); }
  return all;
}

/** The stack's processes by role: gateway, registry, media (children of the launcher) and Postgres. */
export function stackProcesses(launcherPid, externalPostgres) {
  const roles = { gateway: [], registry: [], media: [], postgres: [] };
  for (const pid of children(launcherPid)) {
    const cmd = read(`/proc/${pid}/cmdline`);
    if (cmd.includes('ingest-gateway')) roles.gateway.push(pid);
    else if (cmd.includes('registry-service')) roles.registry.push(pid);
    else if (cmd.includes('media-service')) roles.media.push(pid);
  }
  const comm = (pid) => read(`/proc/${pid}/comm`).trim();
  roles.postgres = externalPostgres
    ? readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => comm(pid) === 'postgres')
    : roles.registry.flatMap(descendants).filter((pid) => comm(pid) === 'postgres');
  return roles;
}

/** CPU µs per pid per role now; `list` is called each time, so Postgres backends started meanwhile count from 0. */
export function snapshot(list) {
  return Object.fromEntries(Object.entries(list()).map(([role, pids]) => [role, new Map(pids.map((pid) => [pid, cpuUs(pid)]))]));
}

/** CPU µs spent per role between two snapshots. */
export function cpuDelta(before, after) {
  return Object.fromEntries(Object.entries(after).map(([role, pids]) => {
    let sum = 0;
    for (const [pid, us] of pids) sum += us - (before[role]?.get(pid) ?? 0);
    return [role, sum];
  }));
}
