/**
 * Each service's own configuration check (its env schema, through the public `./config` entry of
 * its package), run by the launcher on the environment that service will get, before anything
 * starts: a bad value is reported at once, in the service's own words, instead of after the
 * embedded Postgres and the migrations.
 */
import { loadConfig as loadGatewayConfig } from '@dynamic-events/ingest-gateway/config';
import { loadConfig as loadMediaConfig } from '@dynamic-events/media-service/config';
import { LogSafeError, type Environment } from '@dynamic-events/proto/runtime';
import { loadConfig as loadRegistryConfig } from '@dynamic-events/registry-service/config';

/** The launcher's processes: `delivery` is a registry replica that only sends webhooks (plan.ts). */
export type ServiceName = 'gateway' | 'registry' | 'media' | 'delivery';

const LOADERS: Record<ServiceName, (env: Environment) => unknown> = {
  gateway: loadGatewayConfig,
  registry: loadRegistryConfig,
  media: loadMediaConfig,
  delivery: loadRegistryConfig,
};

/** One sentence per service that refuses its environment (naming every bad variable, never a value). */
export function checkServiceConfigs(envs: Record<ServiceName, Environment>): string[] {
  const problems: string[] = [];
  for (const [name, load] of Object.entries(LOADERS)) {
    try {
      load(envs[name as ServiceName]);
    } catch (err) {
      // Anything but the schema's report is a defect, not a setting: let it surface as it is.
      if (!(err instanceof LogSafeError)) throw err;
      problems.push(`${name}: ${err.message.replace(/^invalid configuration: /, '')}`);
    }
  }
  return problems;
}
