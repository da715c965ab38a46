import { parseArgs } from 'node:util';
import { checkPolicyNumbers, parseRfc3339, policyFromJson, TIMESTAMP_RANGE_TEXT, type Timestamp } from '@dynamic-events/proto';
import type { TokenPolicy } from '../tokens/token-policy.js';
import { EVENT_OPTIONS, EVENT_SHAPES, EVENT_USAGE, toEventCommand, type EventCommand } from './event-args.js';
import { booleanFlag, UsageError } from './usage-error.js';
import { toWebhookCommand, WEBHOOK_FILTER_USAGE, WEBHOOK_OPTIONS, WEBHOOK_SHAPES, WEBHOOK_USAGE, type WebhookCommand } from './webhook-args.js';

/** What the operator asked for, with its flags parsed (their rules are the registry's to check). */
export type Command =
  | { kind: 'tokens create'; name: string; policy?: TokenPolicy; expiresAt?: Timestamp }
  | { kind: 'tokens list' }
  | { kind: 'tokens get'; id: string }
  | { kind: 'tokens update'; id: string; name?: string; policy?: TokenPolicy; expiresAt?: Timestamp; clearExpiry: boolean }
  | { kind: 'tokens revoke'; id: string }
  | { kind: 'auth show' }
  | { kind: 'auth set'; requireToken: boolean }
  | WebhookCommand
  | EventCommand
  | { kind: 'help' };

interface Invocation {
  /** --address; undefined: found from the environment (target.ts). */
  address: string | undefined;
  command: Command;
}

export const USAGE = `Usage: node registry-service/dist/cli/main.js [--address HOST:PORT] COMMAND

Commands (output is JSON, in the HTTP API's shapes):
  tokens create --name NAME [--policy JSON] [--expires-at RFC3339]   the secret is under "token", this once
  tokens list
  tokens get ID
  tokens update ID [--name NAME] [--policy JSON] [--expires-at RFC3339 | --no-expiry]
  tokens revoke ID
  auth show
  auth set --require-token true|false
${WEBHOOK_USAGE}
${EVENT_USAGE}

Without --address: $REGISTRY_ADDR, else 127.0.0.1:$REGISTRY_GRPC_PORT when it is set, else the
registry of the stack npm start runs from $DATA_DIR (./.data; it writes DATA_DIR/stack.json),
else 127.0.0.1:50051. The address used is printed on stderr.
TokenService and WebhookService need the registry's credential: $REGISTRY_INTERNAL_TOKEN, else the stack file's.
--policy: {"may_create": ["devices","objects","event_types"], "domains": ["acme.camera.*"],
           "max_devices": n, "max_objects": n, "rate": {"per_second": n, "burst": n}}
${WEBHOOK_FILTER_USAGE}`;

const OPTIONS = {
  address: { type: 'string' },
  name: { type: 'string' },
  policy: { type: 'string' },
  'expires-at': { type: 'string' },
  'no-expiry': { type: 'boolean' },
  'require-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...WEBHOOK_OPTIONS,
  ...EVENT_OPTIONS,
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Flags each command takes besides --address and --help, and how many positionals (the ids). */
const SHAPES: Record<string, { flags: string[]; ids: number; idWords?: string }> = {
  'tokens create': { flags: ['name', 'policy', 'expires-at'], ids: 0 },
  'tokens list': { flags: [], ids: 0 },
  'tokens get': { flags: [], ids: 1 },
  'tokens update': { flags: ['name', 'policy', 'expires-at', 'no-expiry'], ids: 1 },
  'tokens revoke': { flags: [], ids: 1 },
  'auth show': { flags: [], ids: 0 },
  'auth set': { flags: ['require-token'], ids: 0 },
  ...WEBHOOK_SHAPES,
  ...EVENT_SHAPES,
};

/** Parses argv (without node and the script); throws UsageError naming what is wrong. */
export function parseCommandLine(argv: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals, tokens } = parsed;
  // parseArgs keeps the last of a repeated flag: `--name a --name b` would act on a name the operator may not have meant.
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    seen.add(token.name);
  }
  if (values.help || positionals.length === 0) return { address: values.address, command: { kind: 'help' } };
  const kind = positionals.slice(0, 2).join(' ');
  const shape = SHAPES[kind];
  if (!shape) throw new UsageError(`unknown command: ${kind}`);
  const ids = positionals.slice(2);
  if (ids.length !== shape.ids) throw new UsageError(`${kind} takes ${shape.idWords ?? (shape.ids === 1 ? 'one token id' : 'no argument')}`);
  for (const flag of Object.keys(values)) {
    if (flag !== 'address' && !shape.flags.includes(flag)) throw new UsageError(`${kind} does not take --${flag}`);
  }
  const command = kind.startsWith('webhooks ')
    ? toWebhookCommand(kind, ids, values)
    : kind.startsWith('events ')
      ? toEventCommand(kind, ids, values)
      : toCommand(kind, ids[0] ?? '', values);
  return { address: values.address, command };
}

function toCommand(kind: string, id: string, values: Values): Command {
  switch (kind) {
    case 'tokens create':
      if (values.name === undefined) throw new UsageError('tokens create needs --name');
      return { kind, name: values.name, ...changes(values) };
    case 'tokens update':
      if (values['no-expiry'] && values['expires-at'] !== undefined) throw new UsageError('--expires-at and --no-expiry exclude each other');
      return { kind, id, ...changes(values), ...(values.name !== undefined ? { name: values.name } : {}), clearExpiry: values['no-expiry'] === true };
    case 'tokens get':
    case 'tokens revoke':
      return { kind, id };
    case 'auth set':
      return { kind, requireToken: booleanFlag('require-token', values['require-token']) };
    default:
      return { kind: kind as 'tokens list' | 'auth show' };
  }
}

/** --policy and --expires-at, parsed. */
function changes(values: Values): { policy?: TokenPolicy; expiresAt?: Timestamp } {
  const result: { policy?: TokenPolicy; expiresAt?: Timestamp } = {};
  if (values.policy !== undefined) result.policy = parsePolicy(values.policy);
  if (values['expires-at'] !== undefined) {
    const expiresAt = parseRfc3339(values['expires-at']);
    if (!expiresAt) throw new UsageError(`--expires-at must be an RFC 3339 date-time from ${TIMESTAMP_RANGE_TEXT}, e.g. 2027-01-31T12:00:00Z`);
    result.expiresAt = expiresAt;
  }
  return result;
}

function parsePolicy(text: string): TokenPolicy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError('--policy must be JSON, e.g. {"domains": ["acme.camera.*"]}');
  }
  try {
    // The numbers' ranges before the wire: a burst of 2^32 would not even encode.
    const policy = policyFromJson(json);
    checkPolicyNumbers(policy);
    return policy;
  } catch (err) {
    throw new UsageError(`--policy: ${(err as Error).message}`);
  }
}
