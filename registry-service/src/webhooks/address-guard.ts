import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** One address a host name resolved to. */
interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (dns.lookup by default; tests stub it). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * Which addresses a webhook may reach: public unicast only, unless an operator trusts the network
 * (WEBHOOK_ALLOWED_NETWORKS). ipaddr.js names the range of an address; anything but `unicast`
 * (loopback, private, link-local with the cloud metadata address, CGNAT, unspecified, multicast,
 * broadcast, reserved, IPv6 ULA and the forms that embed an IPv4 address) is refused. IPv4-mapped
 * IPv6 addresses are judged as the IPv4 address they carry.
 */
export interface AddressGuard {
  /** Why the address may not be reached (its range's name), or undefined when it may. */
  refusal(address: string): string | undefined;
  /** Resolves a host and checks every address; rejects with AddressRefusedError when any is refused. */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

/** A connection the guard refused before it was opened. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'ADDRESS_REFUSED';
}

/** Parses CIDRs ("10.0.0.0/8", "fd00::/8"); throws naming the first that is not one. */
export function parseNetworks(cidrs: readonly string[]): Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  return cidrs.map((cidr) => {
    try {
      const [address, bits] = ipaddr.parseCIDR(cidr);
      // ::ffff:10.0.0.0/104 is 10.0.0.0/8: addresses are judged after ipaddr.process unmaps them.
      if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && bits >= 96) return [address.toIPv4Address(), bits - 96];
      return [address, bits];
    } catch {
      throw new Error(`${JSON.stringify(cidr)} is not a CIDR such as 10.0.0.0/8 or fd00::/8`);
    }
  });
}

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export function createAddressGuard(options: { allowedNetworks?: readonly string[]; resolver?: Resolver } = {}): AddressGuard {
  const allowed = parseNetworks(options.allowedNetworks ?? []);
  const resolver = options.resolver ?? systemResolver;
  const refusal = (text: string): string | undefined => {
    const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    if (!ipaddr.isValid(bare)) return 'not an IP address';
    const address = ipaddr.process(bare);
    if (allowed.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits))) return undefined;
    const range = address.range();
    return range === 'unicast' ? undefined : range;
  };
  return {
    refusal,
    async resolve(hostname) {
      const addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await resolver(hostname);
      if (addresses.length === 0) throw new AddressRefusedError(`${hostname} resolved to no address`);
      for (const { address } of addresses) {
        const why = refusal(address);
        // The host's name is the webhook's own URL (the admin's input); the address says which range.
        if (why !== undefined) throw new AddressRefusedError(`${hostname} resolves to ${address}, a ${why} address`);
      }
      return addresses;
    },
  };
}
