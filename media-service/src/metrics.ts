import { Counter, Gauge, type Registry } from 'prom-client';

/** The media service's own metrics, registered on the Registry passed in (main.ts's metrics server serves it on METRICS_PORT). */
export interface MediaMetrics {
  /** StoreImage successes; result "created" (new bytes written) or "deduplicated" (already stored). */
  imagesStored: Counter<'result' | 'format'>;
  /** Bytes of newly written images (deduplicated ones cost no storage). */
  bytesStored: Counter;
  /** StoreImage refusals by rule: required, size, format, corrupt, pixels. */
  rejections: Counter<'rule'>;
  /** 1 while the storage backend answered its last check, else 0. */
  storageUp: Gauge;
}

/** Creates the metrics on `registry` (one registry per server, so tests never collide). */
export function createMediaMetrics(registry: Registry): MediaMetrics {
  const registers = [registry];
  return {
    imagesStored: new Counter({
      name: 'media_images_stored_total',
      help: 'Images accepted by StoreImage, by result (created or deduplicated) and format.',
      labelNames: ['result', 'format'] as const,
      registers,
    }),
    bytesStored: new Counter({
      name: 'media_bytes_stored_total',
      help: 'Bytes of newly stored images.',
      registers,
    }),
    rejections: new Counter({
      name: 'media_image_rejections_total',
      help: 'Images refused by StoreImage, by the rule they broke.',
      labelNames: ['rule'] as const,
      registers,
    }),
    storageUp: new Gauge({
      name: 'media_storage_up',
      help: 'Whether the storage backend answered its last health check (1) or not (0).',
      registers,
    }),
  };
}
