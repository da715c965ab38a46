/** Resident memory of a stack's services, read from /proc (Linux): what a chart's memory limit counts. */
import { readFileSync } from 'node:fs';
// @ts-expect-error: bench code is plain JavaScript
import { stackServices } from '../bench/processes.js';

const read = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** VmRSS of a process in MiB (0 once it is gone). */
export function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
}

/** The launcher's processes by role: `delivery` is its webhook sender, a registry with WEBHOOK_DELIVERY=on. */
type Role = 'gateway' | 'registry' | 'media' | 'delivery';

/** The launcher's service processes by role, found by their entry point among its children (the bench's finder, one for both). */
export const servicePids = stackServices as (launcherPid: number) => Partial<Record<Role, number>>;

/** Samples the RSS of `pids` every `everyMs`; stop() answers the peak per role in MiB. */
export function sampleRss<R extends string>(pids: Record<R, number>, everyMs = 100): { stop(): Record<R, number> } {
  const peak = Object.fromEntries(Object.keys(pids).map((role) => [role, 0])) as Record<R, number>;
  const sample = () => {
    for (const role of Object.keys(pids) as R[]) peak[role] = Math.max(peak[role], rssMiB(pids[role]));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
