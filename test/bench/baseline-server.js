// Baseline for the benchmark: the least a Node HTTP service can do for the same request (read the
// body, parse the JSON, answer a small JSON). Product figures are reported as ratios against it.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { constants, PerformanceObserver } from 'node:perf_hooks';

// GCs counted as our services' prom-client counts them (gc.js), asked for over IPC by the bench;
// the observer runs once per GC, never per request.
const gc = { major: 0, pauseMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.pauseMs += entry.duration;
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major += 1;
  }
}).observe({ entryTypes: ['gc'] });
process.on('message', (message) => message === 'gc' && process.send?.({ gc }));

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let out;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      out = JSON.stringify({ id: randomUUID(), domain: body.source.object_domain, event_type: body.event.event_type.event_type });
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad body"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
