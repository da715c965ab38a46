/**
 * A vitest reporter that writes each test file's wall time, from the moment a worker took it to its
 * end, hooks and import included, with vitest's own split of it (collect: importing the file and
 * running its describe callbacks; duration: its tests and hooks). The JSON reporter's per-file times
 * leave out part of that, so its figures understate files that start stacks in beforeAll. For
 * finding where `npm test`'s time goes:
 *
 *   npx vitest run -c test/vitest.config.ts --reporter=default --reporter=./test/support/file-timing-reporter.ts
 *
 * writes FILE_TIMING_OUT (default /tmp/vitest-file-timing.json) and prints the slowest files.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

interface FileTiming {
  file: string;
  /** Milliseconds from the run's start. */
  queued: number;
  end?: number;
  collectMs?: number;
  durationMs?: number;
  state?: string;
}

/** The reporter (vitest instantiates the default export). */
export default class FileTimingReporter implements Reporter {
  private readonly started = Date.now();
  private readonly files = new Map<string, FileTiming>();

  onTestModuleQueued(module: TestModule): void {
    this.files.set(module.moduleId, { file: relative(process.cwd(), module.moduleId), queued: Date.now() - this.started });
  }

  onTestModuleEnd(module: TestModule): void {
    const timing = this.files.get(module.moduleId) ?? { file: relative(process.cwd(), module.moduleId), queued: 0 };
    const { collectDuration, duration } = module.diagnostic();
    this.files.set(module.moduleId, { ...timing, end: Date.now() - this.started, collectMs: Math.round(collectDuration), durationMs: Math.round(duration), state: module.state() });
  }

  onTestRunEnd(): void {
    const wallMs = Date.now() - this.started;
    const files = [...this.files.values()].map((f) => ({ ...f, wallMs: (f.end ?? wallMs) - f.queued })).sort((a, b) => b.wallMs - a.wallMs);
    const out = process.env.FILE_TIMING_OUT ?? '/tmp/vitest-file-timing.json';
    writeFileSync(out, JSON.stringify({ wallMs, files }, null, 1));
    const total = files.reduce((sum, f) => sum + f.wallMs, 0);
    console.log(`\nfile timing: run ${(wallMs / 1000).toFixed(0)} s, ${files.length} files, ${(total / 1000).toFixed(0)} s of file wall time in all (${out}); slowest:`);
    for (const f of files.slice(0, 15)) console.log(`${(f.wallMs / 1000).toFixed(1).padStart(7)} s  ${f.file}`);
  }
}
