import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { windowOf, type CountsJson, type CountWindow, type Range } from './counts.js';
import type { FeedState } from './event-feed.js';
import { followEvents } from './event-stream.js';
import { shownUrl } from './media-links.js';
import type { DeviceJson, EventJson } from './model.js';

/** What the Overview stacks its bars by. */
export type StackBy = 'event_type' | 'domain';

/** A stored image of a recent event: the thumbnail's same-origin path and the event it opens. */
export interface LatestImage {
  path: string;
  event: EventJson;
}

interface OverviewData {
  window: CountWindow;
  chart: CountsJson;
  byType: CountsJson;
  byDevice: CountsJson;
  devices: DeviceJson[];
  images: LatestImage[];
}

/** After a live event the Overview is read again at most this often, however fast events arrive. */
const REFRESH_MS = 2000;
/** And at least this often, so the window slides on while nothing arrives. */
const SLIDE_MS = 60_000;
/**
 * The counts trail the events (the registry's pass, COUNTS_INTERVAL_MS: 5 s by default, 30 s at
 * most): for this long after the screen opens or a live event arrives, the Overview is read again
 * every CATCH_UP_EVERY_MS.
 */
const CATCH_UP_MS = 31_000;
const CATCH_UP_EVERY_MS = 5000;
const IMAGES = 12;
const EMPTY: CountsJson = { buckets: [] };

/** The latest stored images of `events` (newest first), at most IMAGES. */
function latestImages(events: EventJson[], base: string): LatestImage[] {
  const images: LatestImage[] = [];
  for (const event of events) {
    for (const url of event.images) {
      const shown = shownUrl(url, base);
      if (shown.kind === 'stored' && images.length < IMAGES) images.push({ path: shown.path, event });
    }
  }
  return images;
}

/**
 * Every read the Overview shows, asked for together. Each part that answers is shown (the images
 * without the counts, say); the first refusal is the error.
 */
async function readOverview(api: Api, range: Range, stackBy: StackBy, before: OverviewData): Promise<{ data: OverviewData; error: string | undefined }> {
  const window = windowOf(range, Date.now());
  const counts = (group_by: string) => api.get<CountsJson>('/dynamic-events/counts', { ...window, group_by });
  const [chart, byType, byDevice, devices, events] = await Promise.allSettled([
    counts(stackBy),
    stackBy === 'event_type' ? undefined : counts('event_type'),
    counts('device_name'),
    api.list<DeviceJson>('/devices', 'devices', { limit: '1000' }),
    api.list<EventJson>('/dynamic-events', 'events', { limit: '100' }),
  ]);
  const failed = [chart, byType, byDevice, devices, events].find((part) => part.status === 'rejected');
  const reason: unknown = failed?.status === 'rejected' ? failed.reason : undefined;
  const chartCounts = chart.status === 'fulfilled' ? chart.value : EMPTY;
  const data = {
    window,
    chart: chartCounts,
    byType: byType.status === 'fulfilled' ? (byType.value ?? chartCounts) : EMPTY,
    byDevice: byDevice.status === 'fulfilled' ? byDevice.value : EMPTY,
    devices: devices.status === 'fulfilled' ? devices.value.items : before.devices,
    images: events.status === 'fulfilled' ? latestImages(events.value.items, api.base) : before.images,
  };
  return { data, error: failed === undefined ? undefined : reason instanceof ApiError ? reason.message : String(reason) };
}

/**
 * The Overview's data for a range, read again after live events (at most every REFRESH_MS, then
 * while the counts catch up) and every SLIDE_MS, so it follows live like Events. Answers to an
 * older read are dropped.
 */
export function useOverview(api: Api, range: Range, stackBy: StackBy, follow: boolean) {
  const [data, setData] = useState<OverviewData>({ window: windowOf(range, Date.now()), chart: EMPTY, byType: EMPTY, byDevice: EMPTY, devices: [], images: [] });
  const [error, setError] = useState<string | undefined>();
  const [stream, setStream] = useState<FeedState>({ kind: 'off', reason: 'Live updates are off.' });
  const [tick, setTick] = useState(0);
  const asked = useRef(0);
  // Events written just before the screen opened may not be counted yet either: catch up from the start.
  const lastLive = useRef(Date.now());

  useEffect(() => {
    const read = ++asked.current;
    void readOverview(api, range, stackBy, data).then((answer) => {
      if (read !== asked.current) return;
      setData(answer.data);
      setError(answer.error);
    });
    const catchingUp = Date.now() - lastLive.current < CATCH_UP_MS;
    const slide = setTimeout(() => setTick((n) => n + 1), catchingUp ? CATCH_UP_EVERY_MS : SLIDE_MS);
    return () => clearTimeout(slide);
  }, [api, range.id, stackBy, tick]);

  useEffect(() => {
    if (!follow) {
      setStream({ kind: 'off', reason: 'Live updates are off.' });
      return undefined;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = followEvents({
      api,
      filters: {},
      onState: setStream,
      onEvents: () => {
        lastLive.current = Date.now();
        timer ??= setTimeout(() => ((timer = undefined), setTick((n) => n + 1)), REFRESH_MS);
      },
    });
    return () => {
      stop();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, follow]);

  return { data, error, stream };
}
