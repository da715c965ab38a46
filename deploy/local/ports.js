/**
 * Internal ports of the all-in-one stack (registry and media gRPC, the three metrics servers). A
 * port set in the environment is used as given: if it is taken, that service fails loudly. An unset
 * one takes its default when that is free, else any free port, so a second `npm start` on the same
 * machine with only PORT changed runs beside the first instead of crashing on EADDRINUSE.
 */
import { createServer } from 'node:net';

/** Binds `port` on `host` (0: the OS picks) and releases it; resolves the port, or undefined when taken. */
function probe(port, host) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host, exclusive: true }, () => {
      const bound = server.address().port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port the OS picks, other than those already chosen: the kernel may give a just-released port to
 * the next bind(0), and two services told the same port would collide at start.
 */
async function anyFreePort(host, chosen) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await probe(0, host);
    if (port === undefined || !chosen.includes(port)) return port;
  }
  return undefined;
}

/**
 * `wanted`: [{ name, value (the validated port, or undefined when unset), fallback (default port), host }].
 * Returns { ports: { name: port }, moved: [{ name, from, to }] } (moved: defaults that were taken).
 */
export async function chooseInternalPorts(wanted) {
  const ports = {};
  const moved = [];
  for (const { name, value, fallback, host } of wanted) {
    if (value !== undefined) {
      ports[name] = value;
      continue;
    }
    const free = (await probe(fallback, host)) ?? (await anyFreePort(host, Object.values(ports)));
    if (free === undefined) throw new Error(`no free port for ${name} on ${host}`);
    ports[name] = free;
    if (free !== fallback) moved.push({ name, from: fallback, to: free });
  }
  return { ports, moved };
}
