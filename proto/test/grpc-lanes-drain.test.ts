/**
 * A lane's wait for 'drain' (grpc-lanes-server.ts) on a stand-in for grpc-js's server call whose
 * every write asks to wait: one listener however many answers are written meanwhile, none once the
 * lane ended, and input paused exactly while it waits.
 */
import { EventEmitter } from 'node:events';
import { Metadata, type ServerDuplexStream } from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { laneHandler } from '../src/runtime/grpc-lanes-server.js';
import { createLaneLimits } from '../src/runtime/lane-limits.js';

/** The parts of a server call a lane uses; each write returns false, as with a caller that does not read. */
function fakeCall() {
  const call = Object.assign(new EventEmitter(), {
    metadata: new Metadata(),
    written: 0,
    paused: false,
    ended: false,
    getPeer: () => 'ipv4:127.0.0.1:1',
    pause: () => void (call.paused = true),
    resume: () => void (call.paused = false),
    write: () => (call.written++, false),
    end: () => void (call.ended = true),
  });
  return call;
}

/** Lets the lane's promise chain run: handlers, then writes in order. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a lane whose answers wait for the caller', () => {
  it('keeps one drain listener however many writes ask to wait, and none once the lane ends', async () => {
    const call = fakeCall();
    // Bounds far above the messages below: only the wait for 'drain' pauses the lane.
    const limits = createLaneLimits({ laneMessages: 1000, connectionMessages: 1000 });
    laneHandler(pino({ level: 'silent' }), 'test.Service', 'Lane', async () => ({}), { limits })(call as unknown as ServerDuplexStream<unknown, unknown>);

    // grpc-js stops delivering once paused; the stand-in does not, so 50 writes all ask to wait.
    for (let n = 0; n < 50; n++) call.emit('data', {});
    await settle();
    expect(call.written).toBe(50);
    expect(call.paused).toBe(true);
    expect(call.listenerCount('drain')).toBe(1);

    call.emit('drain');
    expect(call.paused).toBe(false);
    expect(call.listenerCount('drain')).toBe(0);

    call.emit('data', {});
    await settle();
    expect(call.paused).toBe(true);
    expect(call.listenerCount('drain')).toBe(1);

    call.emit('end');
    await settle();
    expect(call.ended).toBe(true);
    expect(call.listenerCount('drain')).toBe(0);
  });
});
