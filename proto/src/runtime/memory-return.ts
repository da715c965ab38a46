import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * A full garbage collection, so memory a burst left as garbage goes back to the system while the
 * process is idle: V8 collects when it allocates, and an idle process allocates nothing, so after
 * a resume storm the registry kept about 170 MiB of dead message buffers for minutes (measured with
 * test/bench/resume-storm.js, a collection forced over the inspector). V8 offers the collection to a
 * context created once --expose-gc is set; the process is not started with the flag, and the global
 * `gc` of its own context stays undefined.
 */
export function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * For a count of open things that leave garbage behind (event streams, Watch calls): call it with
 * the count at each change. Once the count falls to a quarter of a peak of at least `threshold`
 * and stays there for `delayMs`, garbage is collected once (collectGarbage) and the peak is
 * forgotten: a flood of streams that closed gives its memory back while the process idles.
 */
export function collectAfterBursts(threshold: number, delayMs = 2000, collect: () => void = collectGarbage): (count: number) => void {
  let peak = 0;
  let timer: NodeJS.Timeout | undefined;
  return (count) => {
    if (count > peak) peak = count;
    clearTimeout(timer);
    timer = undefined;
    if (peak < threshold || count > peak / 4) return;
    timer = setTimeout(() => {
      timer = undefined;
      peak = 0;
      collect();
    }, delayMs).unref();
  };
}
