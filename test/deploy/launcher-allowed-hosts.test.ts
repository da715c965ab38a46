/**
 * Under `npm start` the gateway answers only its own names unless ALLOWED_HOSTS says otherwise: the
 * loopback names and PUBLIC_BASE_URL's host, so a DNS-rebinding page cannot reach a stack listening
 * on 0.0.0.0 through a browser on the same machine or network.
 */
import { describe, expect, it } from 'vitest';
import { LAUNCHER_ENV } from '../../deploy/local/config.js';
import { planStack } from '../../deploy/local/plan.js';
import { tempDir } from '../support/servers.js';

async function gatewayHosts(extra: Record<string, string>): Promise<string | undefined> {
  const dir = tempDir('launcher-hosts');
  try {
    const env = { DATA_DIR: dir.path, HOST: '127.0.0.1', PORT: '0', ...extra };
    return (await planStack(LAUNCHER_ENV.load(env), env)).envs.gateway.ALLOWED_HOSTS;
  } finally {
    dir.remove();
  }
}

describe('ALLOWED_HOSTS under npm start', () => {
  it('defaults to the loopback names and the host of PUBLIC_BASE_URL', async () => {
    expect(await gatewayHosts({})).toBe('localhost,127.0.0.1,::1');
    expect(await gatewayHosts({ PUBLIC_BASE_URL: 'https://Events.Example.com:8443/base' })).toBe('localhost,127.0.0.1,::1,events.example.com');
    expect(await gatewayHosts({ PUBLIC_BASE_URL: 'http://[2001:db8::5]:8080' })).toBe('localhost,127.0.0.1,::1,[2001:db8::5]');
  });

  it('keeps a value that is set, `*` included', async () => {
    expect(await gatewayHosts({ ALLOWED_HOSTS: 'lan-box.local' })).toBe('lan-box.local');
    expect(await gatewayHosts({ ALLOWED_HOSTS: '*' })).toBe('*');
  });
});
