// Garbage collections of the processes under test, so a report shows when a process spent a run in
// V8's full-GC cycle. Under image load a Node process whose live heap is small (about 20 MB) but
// whose in-flight Buffers are large can fall into a mode where a mark-compact runs every ~150 ms:
// V8 counts external (ArrayBuffer) memory allocated since the last mark-compact against the old
// generation's limit, which it sizes from the small live heap, and each such GC promotes the Buffers
// then in flight, so the next one comes as soon. Another process of the same build, or the same one
// in another run, stays in a mode where scavenges free the Buffers young. Measured on the media
// service alone (16 image calls in flight): 1.3-1.6 ms CPU per image without mark-compacts,
// 2.2-2.8 ms with 50-90 of them in 8 s. The counts show which mode a run was in instead of leaving
// a swing in the CPU figures to be guessed.

// prom-client's figures in our services: major (mark-compact) GCs, and pause seconds of every kind.
const MAJOR = /^nodejs_gc_duration_seconds_count\{kind="major"\} (\S+)$/m;
const PAUSE = /^nodejs_gc_duration_seconds_sum\{kind="[a-z]+"\} (\S+)$/gm;

/** Reads a service's prom-client GC figures from its /metrics; undefined when it does not answer. */
async function scrape(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) return undefined;
    const text = await res.text();
    const pauseSeconds = [...text.matchAll(PAUSE)].reduce((sum, m) => sum + Number(m[1]), 0);
    return { major: Number(MAJOR.exec(text)?.[1] ?? 0), pauseMs: pauseSeconds * 1000 };
  } catch {
    return undefined;
  }
}

/** The stack's GC figures from the three services' metrics endpoints ({role: url}). */
export function stackGcReader(metricsUrls) {
  return async () => {
    const entries = await Promise.all(Object.entries(metricsUrls).map(async ([role, url]) => [role, await scrape(url)]));
    return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
  };
}

/** GCs per role between two readings, or undefined when either is missing. */
export function gcDelta(before, after) {
  if (!before || !after) return undefined;
  const delta = {};
  for (const [role, now] of Object.entries(after)) {
    const then = before[role];
    if (then) delta[role] = { major: now.major - then.major, pauseMs: now.pauseMs - then.pauseMs };
  }
  return delta;
}

/** Several runs' GC deltas as one (sums per role). */
export function sumGc(deltas) {
  const present = deltas.filter(Boolean);
  if (present.length === 0) return undefined;
  const total = {};
  for (const delta of present) {
    for (const [role, { major, pauseMs }] of Object.entries(delta)) {
      total[role] ??= { major: 0, pauseMs: 0 };
      total[role].major += major;
      total[role].pauseMs += pauseMs;
    }
  }
  return total;
}

/** Per 1,000 events: major GCs (one decimal) and GC pause ms (whole), per role; undefined without figures. */
export function gcPerThousand(gc, events) {
  if (!gc || !(events > 0)) return undefined;
  const per = (value, digits) => Math.round((value * 1000 * 10 ** digits) / events) / 10 ** digits;
  return Object.fromEntries(Object.entries(gc).map(([role, { major, pauseMs }]) => [role, { major: per(major, 1), pauseMs: per(pauseMs, 0) }]));
}
