import { Gauge, type Registry } from 'prom-client';

/**
 * `service_ready`: 1 while this instance answers its readiness probe as ready, else 0; read at each
 * scrape. One name for every service, so one alert covers all three (the job label tells them apart).
 */
export function registerReadinessMetric(registry: Registry, ready: () => boolean | Promise<boolean>): void {
  new Gauge({
    name: 'service_ready',
    help: 'Whether this instance answers its readiness probe as ready (1) or not (0): the gateway its /readyz, the gRPC services their health status',
    registers: [registry],
    async collect() {
      this.set((await ready()) ? 1 : 0);
    },
  });
}
