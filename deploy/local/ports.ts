/**
 * Every port the all-in-one stack binds, settled before anything starts: the gateway's HTTP port,
 * the registry's and media's gRPC ports and the three metrics ports. A port that is set (PORT
 * always is: its default is 8080) must be free, or the launcher refuses to start, naming the
 * variable to set: a stack that started beside another one on the same port would serve nothing
 * while the other one answered its requests. An unset internal port takes its default when that
 * is free, else any free port, so a second `npm start` on the same machine needs only another PORT
 * (and DATA_DIR).
 */
import { createServer, type AddressInfo } from 'node:net';

interface WantedPort {
  /** The variable that sets it, named when the port cannot be used. */
  name: string;
  /** The validated port; undefined when unset (the launcher chooses). */
  value: number | undefined;
  /** The default of an unset internal port, taken when free. */
  fallback?: number;
  host: string;
}

interface PortPlan {
  ports: Record<string, number>;
  /** Unset ports whose default was taken, and the port chosen instead. */
  moved: Array<{ name: string; from: number; to: number }>;
  /** Why a set port cannot be used, one sentence each, naming its variable. */
  problems: string[];
}

/** Binds `port` on `host` (0: the OS picks) and releases it; resolves the port, or undefined when taken. */
function probe(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host, exclusive: true }, () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port the OS picks, other than those already taken by the plan: the kernel may give a
 * just-released port to the next bind(0), and two services told the same port would collide.
 */
async function anyFreePort(host: string, taken: number[]): Promise<number | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await probe(0, host);
    if (port === undefined || !taken.includes(port)) return port;
  }
  return undefined;
}

/** Checks the set ports (free, and no two the same) and chooses the unset ones. */
export async function planPorts(wanted: WantedPort[]): Promise<PortPlan> {
  const plan: PortPlan = { ports: {}, moved: [], problems: [] };
  const set = wanted.filter((port) => port.value !== undefined);
  for (const { name, value, host } of set) {
    const port = value as number;
    plan.ports[name] = port;
    // 0: the service binds whatever port the OS gives it, which cannot be taken.
    if (port === 0) continue;
    const twin = set.find((other) => other.value === port && other.name !== name);
    if (twin) {
      if (twin.name > name) plan.problems.push(`${name} and ${twin.name} are both ${port}: give each its own port`);
    } else if ((await probe(port, host)) === undefined) {
      plan.problems.push(`${name}: port ${port} on ${host} is in use by another process (set ${name} to a free port)`);
    }
  }
  for (const { name, value, fallback, host } of wanted) {
    if (value !== undefined || fallback === undefined) continue;
    const taken = Object.values(plan.ports);
    const free = (taken.includes(fallback) ? undefined : await probe(fallback, host)) ?? (await anyFreePort(host, taken));
    if (free === undefined) {
      plan.problems.push(`${name}: no free port on ${host} (set ${name})`);
      continue;
    }
    plan.ports[name] = free;
    if (free !== fallback) plan.moved.push({ name, from: fallback, to: free });
  }
  return plan;
}
