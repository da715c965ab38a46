/**
 * The address check of webhook URLs and connections: literal internal addresses refused at create,
 * names checked on the address they resolve to (a stubbed resolver: nothing here leaves loopback),
 * and the refusal made before any connection opens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.js';
import { AddressRefusedError, createAddressGuard, type Resolver } from '../src/webhooks/address-guard.js';
import { createSender } from '../src/webhooks/sender.js';
import { checkWebhookUrl } from '../src/webhooks/webhook-rules.js';

const stub = (table: Record<string, string[]>): Resolver => async (hostname) => {
  const addresses = table[hostname];
  if (!addresses) throw Object.assign(new Error(`${hostname} not in the stub`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('refused address ranges', () => {
  const guard = createAddressGuard();
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'], ['169.254.169.254', 'linkLocal'], ['100.64.0.1', 'carrierGradeNat'], ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'], ['255.255.255.255', 'broadcast'], ['::1', 'loopback'], ['::', 'unspecified'], ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'], ['fe80::1', 'linkLocal'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'], ['ff02::1', 'multicast'], ['64:ff9b::a00:1', 'rfc6052'], ['2002:a00:1::1', '6to4'],
  ])('%s is refused (%s)', (address, range) => {
    expect(guard.refusal(address)).toBe(range);
  });
  it.each(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '172.32.0.1', '100.128.0.1'])('%s is public', (address) => {
    expect(guard.refusal(address)).toBeUndefined();
  });
  it('WEBHOOK_ALLOWED_NETWORKS exempts exactly its networks, IPv4-mapped forms included', () => {
    const trusting = createAddressGuard({ allowedNetworks: ['10.20.0.0/16', 'fd00::/8'] });
    expect(trusting.refusal('10.20.3.4')).toBeUndefined();
    expect(trusting.refusal('::ffff:10.20.3.4')).toBeUndefined();
    expect(trusting.refusal('10.21.0.1')).toBe('private');
    expect(trusting.refusal('fd00::5')).toBeUndefined();
    expect(trusting.refusal('fc00::5')).toBe('uniqueLocal');
  });
});

describe('webhook URLs at create and update', () => {
  const guard = createAddressGuard();
  const refused = (url: string) => {
    try {
      checkWebhookUrl(url, guard);
    } catch (err) {
      return err as { details?: { field?: string; rule?: string }; message: string };
    }
    throw new Error(`${url} was accepted`);
  };
  it.each([
    ['ftp://example.com/x', 'scheme'], ['file:///etc/passwd', 'scheme'], ['gopher://example.com/', 'scheme'], ['javascript:alert(1)', 'scheme'],
    ['https://user:pw@example.com/', 'user-info'], ['https://user@example.com/', 'user-info'], ['not a url', 'url'], ['', 'required'],
    ['http://127.0.0.1/', 'internal-address'], ['http://2130706433/', 'internal-address'], ['http://0x7f.1/', 'internal-address'], ['http://[::1]/', 'internal-address'],
    ['http://[::ffff:127.0.0.1]/', 'internal-address'], ['http://169.254.169.254/latest/meta-data/', 'internal-address'], ['http://10.0.0.1:8080/', 'internal-address'],
    ['http://0.0.0.0/', 'internal-address'], ['http://100.64.1.1/', 'internal-address'], ['http://[fe80::1]/', 'internal-address'], ['http://[fd00::1]/', 'internal-address'],
    [`https://example.com/${'a'.repeat(2100)}`, 'max-length'],
  ])('%s is refused naming url (%s)', (url, rule) => {
    const err = refused(url);
    expect(err.details).toMatchObject({ field: 'url', rule });
  });
  it('public URLs pass, normalised', () => {
    expect(checkWebhookUrl('https://Hooks.Example.com/a?b=1', guard)).toBe('https://hooks.example.com/a?b=1');
    expect(checkWebhookUrl('http://8.8.8.8/x', guard)).toBe('http://8.8.8.8/x');
  });
});

describe('connections go only to checked addresses', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    // 127.0.0.2 is loopback: a broken guard would reach this receiver, never another machine.
    receiver = await startReceiver({ host: '127.0.0.2' });
  });
  afterAll(() => receiver.close());
  const send = (resolver: Resolver, allowedNetworks: string[] = []) => {
    const sender = createSender({ guard: createAddressGuard({ resolver, allowedNetworks }), timeoutMs: 2000, connectionsPerOrigin: 2, userAgent: 'test' });
    const port = new URL(receiver.url).port;
    return { sender, send: (host: string) => sender.send(`http://${host}:${port}/hook`, {}, '{}') };
  };

  it('a name resolving to an internal address is refused before any connection opens', async () => {
    const { sender, send: to } = send(stub({ 'hooks.example.test': ['127.0.0.2'], 'meta.example.test': ['169.254.169.254'], 'mixed.example.test': ['8.8.8.8', '127.0.0.2'] }));
    for (const host of ['hooks.example.test', 'meta.example.test', 'mixed.example.test']) {
      const result = await to(host);
      expect(result.statusCode).toBeUndefined();
      expect(result.error).toMatch(/^refused: .* a (loopback|linkLocal) address$/);
    }
    // A literal address is refused by the connector itself (net would skip the lookup).
    expect((await to('127.0.0.2')).error).toBe('refused: 127.0.0.2 is a loopback address');
    expect(receiver.connections).toBe(0);
    await sender.close(0);
  });

  it('the address checked is the one connected to: a trusted network reaches the receiver', async () => {
    const { sender, send: to } = send(stub({ 'hooks.example.test': ['127.0.0.2'] }), ['127.0.0.2/32']);
    expect((await to('hooks.example.test')).statusCode).toBe(204);
    expect(receiver.connections).toBe(1);
    await sender.close(0);
  });

  it('a resolver failure is an attempt that failed, not a crash', async () => {
    const { sender, send: to } = send(stub({}));
    expect((await to('nowhere.example.test')).error).toBe('the host name does not resolve');
    await sender.close(0);
  });

  it('AddressRefusedError carries its code', () => {
    expect(new AddressRefusedError('x').code).toBe('ADDRESS_REFUSED');
  });
});
