// CPU time and memory of the processes under test, read from /proc (Linux), so each figure can be
// divided by the events served: utime + stime (fields 14 and 15 of /proc/<pid>/stat) and VmRSS.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second, asked once: /proc/<pid>/stat counts CPU time in these. */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Reads a /proc file; '' when the process is gone (a backend may exit between listing and reading). */
const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** CPU µs (user + system) a process has used; the comm field may hold spaces, so parse after ')'. */
export function cpuUs(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** Resident memory in MiB (0 once the process is gone). */
export function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
}

/** Direct children of a process, from every thread's children list (a child belongs to the thread that forked it). */
function children(pid) {
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => read(`/proc/${pid}/task/${tid}/children`).split(' ').filter(Boolean).map(Number));
}

function descendants(pid) {
  const found = [];
  const todo = [pid];
  while (todo.length > 0) {
    const next = children(todo.pop());
    found.push(...next);
    todo.push(...next);
  }
  return found;
}

const comm = (pid) => read(`/proc/${pid}/comm`).trim();

/**
 * The launcher's services by their entry point (`…/ingest-gateway/dist/main.js` etc.); the registry
 * replica started with WEBHOOK_DELIVERY=on (the launcher's webhook sender) is `delivery`.
 */
export function stackServices(launcherPid) {
  const services = {};
  const entries = { gateway: '/ingest-gateway/dist/main.js', registry: '/registry-service/dist/main.js', media: '/media-service/dist/main.js' };
  for (const pid of children(launcherPid)) {
    const argv = read(`/proc/${pid}/cmdline`).split('\0');
    for (const [role, entry] of Object.entries(entries)) {
      if (!argv.some((arg) => arg.endsWith(entry))) continue;
      const delivers = role === 'registry' && read(`/proc/${pid}/environ`).split('\0').includes('WEBHOOK_DELIVERY=on');
      services[delivers ? 'delivery' : role] = pid;
    }
  }
  return services;
}

/**
 * Postgres processes: on a shared server every `postgres` process of the machine (backends come and
 * go, and background writers work for us too); embedded, the registry's `postgres` descendants.
 */
export function postgresPids(registryPid, sharedServer) {
  if (sharedServer) return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => comm(pid) === 'postgres').map(Number);
  return registryPid ? descendants(registryPid).filter((pid) => comm(pid) === 'postgres') : [];
}

/** CPU µs per pid for each role; `roles()` is listed again at each call so new backends count from 0. */
export function cpuSnapshot(roles) {
  const snap = {};
  for (const [role, pids] of Object.entries(roles())) {
    snap[role] = new Map();
    for (const pid of pids) {
      const us = cpuUs(pid);
      if (us !== undefined) snap[role].set(pid, us);
    }
  }
  return snap;
}

/** CPU µs used per role between two snapshots (a pid seen only after counts from 0, one gone before is lost). */
export function cpuDelta(before, after) {
  const used = {};
  for (const [role, pids] of Object.entries(after)) {
    used[role] = 0;
    for (const [pid, us] of pids) used[role] += us - (before[role]?.get(pid) ?? 0);
  }
  return used;
}

/** Samples VmRSS of `pids` ({role: pid}) every 500 ms; stop() returns the max MiB per role. */
export function sampleRss(pids) {
  const max = Object.fromEntries(Object.keys(pids).map((role) => [role, 0]));
  const sample = () => {
    for (const [role, pid] of Object.entries(pids)) max[role] = Math.max(max[role], rssMiB(pid));
  };
  sample();
  const timer = setInterval(sample, 500);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return max;
    },
  };
}
