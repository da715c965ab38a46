import type { LookupAddress, LookupOptions } from 'node:dns';
import { buildConnector } from 'undici';
import { isIP } from 'node:net';
import { AddressRefusedError, type AddressGuard } from './address-guard.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An undici connector whose every connection goes to an address the guard checked: the host is
 * resolved once, every address checked, and the socket is opened to one of those addresses (net and
 * tls connect through this lookup), so a name that resolves differently the second time (DNS
 * rebinding) cannot pass. A refusal is an error before any socket exists.
 */
export function createGuardedConnector(guard: AddressGuard, options: { timeoutMs: number }): buildConnector.connector {
  const lookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    guard.resolve(hostname).then(
      (addresses) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const usable = family === undefined ? addresses : addresses.filter((a) => a.family === family);
        if (lookupOptions.all) callback(null, usable);
        else if (usable[0]) callback(null, usable[0].address, usable[0].family);
        else callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '');
      },
      (err: Error) => callback(err, ''),
    );
  };
  const connect = buildConnector({ timeout: options.timeoutMs, lookup: lookup as never });
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.startsWith('[') ? connectOptions.hostname.slice(1, -1) : connectOptions.hostname;
    // net.connect skips the lookup for a literal address: check it here.
    const why = isIP(host) ? guard.refusal(host) : undefined;
    if (why !== undefined) callback(new AddressRefusedError(`${host} is a ${why} address`), null);
    else connect(connectOptions, callback);
  };
}
