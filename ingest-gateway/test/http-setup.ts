/** Shared set-up of the http-*.test.ts files: what a test changed on the fakes is undone after it. */
import type { TestGateway } from './helpers.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The gateway options every http-*.test.ts file starts with (a small body limit to hit). */
export const HTTP_TEST_OPTIONS = { maxBodyBytes: 64 * 1024 };

/** Clears failures, serving flags and recorded calls, so each test starts from a healthy gateway. */
export function resetFakes(gw: TestGateway): void {
  gw.registry.failWith = undefined;
  gw.media.failWith = undefined;
  gw.registry.serving = true;
  gw.media.serving = true;
  gw.registry.calls.length = 0;
  gw.media.calls.length = 0;
}

export async function jsonOf(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}
