/** Loads ingest-gateway/openapi.yaml and validates real response bodies against its schemas. */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { REPO_ROOT } from './stack.js';

export const OPENAPI_PATH = `${REPO_ROOT}ingest-gateway/openapi.yaml`;
export const openapi = parse(readFileSync(OPENAPI_PATH, 'utf8')) as Record<string, unknown>;

// The document holds non-schema keywords (paths, info...): strict off; only components are compiled.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(openapi, 'openapi');

/** Throws with every violation when `body` does not match components.schemas[name]. */
export function assertMatchesSchema(name: string, body: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in the OpenAPI document`);
  if (!validate(body)) throw new Error(`${name} response does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
}
