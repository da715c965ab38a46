import { isIPv6 } from 'node:net';

/**
 * The key a peer address counts under for the stream caps: an IPv4 address as it is (an IPv4-mapped
 * IPv6 one as its IPv4), an IPv6 address by its /64, the smallest block a host is usually given:
 * counted by full address, one host could open a cap's worth from each of its 2^64 addresses.
 */
export function clientAddressOf(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address (a zone index dropped, `::` expanded, an IPv4 tail as two groups). */
function expandIPv6(address: string): string[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => group.replace(/^0+(?=.)/, ''));
}
