/**
 * A streamed image response carries more 'close' listeners than Node's default limit of 10 (seven
 * from Node's own pipeline, four from the gateway); they live as long as the response. Past the
 * limit Node logs a MaxListenersExceededWarning on every process's first image, which reads like a
 * leak in the bench's and operators' logs, so the response raises its own limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, startGateway, TINY_PNG, type TestGateway } from './helpers.js';

describe('GET media: listeners on the response', () => {
  let gw: TestGateway;
  const key = `${'cd'.repeat(32)}.png`;
  beforeAll(async () => {
    gw = await startGateway();
    gw.media.images.set(key, { contentType: 'image/png', data: TINY_PNG });
  });
  afterAll(() => gw.close());

  it('streams images without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${gw.url}${API}/media/${key}`);
        expect(Buffer.from(await response.arrayBuffer())).toEqual(TINY_PNG);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
