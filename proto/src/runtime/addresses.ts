/** Host and port formatting, written once: IPv6 literals need brackets in URLs and gRPC targets. */

/** `host` as the host part of a URL or a gRPC target: an IPv6 literal in brackets (never twice). */
function bracketHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** `host:port`, with an IPv6 host bracketed. */
export function hostPort(host: string, port: number | string): string {
  return `${bracketHost(host)}:${port}`;
}

/** A URL on this machine for a server bound to `host` (unset or a wildcard address: loopback). */
export function localUrl(host: string | undefined, port: number | string, path = ''): string {
  const reachable = !host || host === '0.0.0.0' || host === '::' || host === '[::]' ? '127.0.0.1' : host;
  return `http://${hostPort(reachable, port)}${path}`;
}
