import type { IncomingMessage } from 'node:http';
import { AppError } from '@dynamic-events/proto';

/** The host names the gateway answers (ALLOWED_HOSTS); undefined: any. */
export type AllowedHosts = ReadonlySet<string> | undefined;

/** A host as compared: lower case, without port, IPv6 brackets or a trailing dot. */
function canonical(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) name = name.slice(1, name.indexOf(']') < 0 ? undefined : name.indexOf(']'));
  else if (name.indexOf(':') === name.lastIndexOf(':')) name = name.split(':')[0]!;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** ALLOWED_HOSTS as the config reads it: comma-separated names (`*.acme.io`: one label under it); unset or `*`, any Host. */
export function parseAllowedHosts(value: string | undefined): AllowedHosts {
  if (value === undefined || value.trim() === '*') return undefined;
  return new Set(value.split(',').map(canonical).filter((name) => name !== ''));
}

const refused = (): AppError =>
  new AppError('INVALID_ARGUMENT', 'this Host is not one the gateway serves: add it to ALLOWED_HOSTS', { httpStatus: 421, field: 'Host', rule: 'allowed-hosts' });

/**
 * Throws 421 Misdirected Request unless the request's Host is one of `allowed`: a page on another
 * name resolving to this gateway (DNS rebinding) can then neither read nor post through a victim's
 * browser. The caller is told what to change, never shown the name it sent.
 */
export function checkAllowedHost(req: IncomingMessage, allowed: AllowedHosts): void {
  if (allowed === undefined) return;
  const host = req.headers.host;
  if (host === undefined) throw refused();
  const name = canonical(host);
  // `*.acme.io` covers one label, as an Ingress host does.
  if (!allowed.has(name) && !allowed.has(`*${name.slice(name.indexOf('.'))}`)) throw refused();
}
