import { AppError } from '@dynamic-events/proto';
import {
  connectable,
  DATA_DIR,
  defineEnv,
  type EnvVar,
  REGISTRY_ADDR,
  REGISTRY_GRPC_PORT,
  REGISTRY_INTERNAL_TOKEN,
  type Environment,
} from '@dynamic-events/proto/runtime';
import { parseCommandLine, USAGE } from './args.js';
import { isEventCommand } from './event-args.js';
import { runEventCommand } from './event-client.js';
import { isWebhookCommand } from './webhook-args.js';
import { UsageError } from './usage-error.js';
import { resolveTarget } from './target.js';
import { runCommand } from './token-client.js';
import { runWebhookCommand } from './webhook-client.js';

/** Where the CLI writes: the process' streams in main.ts, buffers in tests. */
interface CliOutput {
  /** Settles once the text is written; rejects when it cannot be (a closed pipe: EPIPE). */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
}

/** Thrown when stdout is gone before the result is written; says what the command already did. */
class OutputLost extends Error {
  override readonly name = 'OutputLost';
}

/**
 * Writes the result. A created token's secret exists only in this output: when it cannot be
 * written (the reader closed the pipe), the operator is told which token to revoke.
 */
async function printResult(out: CliOutput, result: unknown): Promise<void> {
  try {
    await out.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } catch {
    const { id, token, secret } = (result ?? {}) as { id?: unknown; token?: unknown; secret?: unknown };
    if (typeof token === 'string' && typeof id === 'string') {
      throw new OutputLost(`stdout closed before the token's secret was written: token ${id} was created; revoke it (tokens revoke ${id}) and create another`);
    }
    if (typeof secret === 'string' && typeof id === 'string') {
      throw new OutputLost(`stdout closed before the webhook's secret was written: webhook ${id} was created; delete it (webhooks delete ${id}) and create another`);
    }
    throw new OutputLost('stdout closed before the result was written');
  }
}

/** Exit codes: 0 done, 1 the registry refused or could not be reached, 2 a bad command line. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** REGISTRY_GRPC_PORT without its default: set, it names the registry beside the CLI (in its pod). */
const { default: _unset, ...portSchema } = connectable(REGISTRY_GRPC_PORT).schema;

/** The variables the CLI reads, to find its registry (target.ts) and the credential its TokenService needs. */
const CLI_ENV = defineEnv({
  REGISTRY_ADDR,
  REGISTRY_GRPC_PORT: { ...connectable(REGISTRY_GRPC_PORT), schema: portSchema } as EnvVar<number, false>,
  DATA_DIR,
  REGISTRY_INTERNAL_TOKEN,
});

/** What the operator is told when the registry refused the credential (or its absence). */
const CREDENTIAL_HINT = "set REGISTRY_INTERNAL_TOKEN to the registry's value (in a registry pod it is set; beside npm start the stack file has it)";

/**
 * The operator CLI (`kubectl exec` into a registry pod): manages tokens and the token requirement
 * through the registry's own TokenService, so it goes through the same rules as the settings module.
 * Resolves with the exit code; prints JSON on success, the error's message on failure.
 */
export async function runCli(argv: string[], env: Environment, out: CliOutput): Promise<number> {
  try {
    const { address, command } = parseCommandLine(argv);
    if (command.kind === 'help') {
      await out.stdout(`${USAGE}\n`);
      return EXIT.ok;
    }
    const settings = CLI_ENV.load(env);
    const { address: target, source, credential } = await resolveTarget({ flag: address, ...settings });
    out.stderr(`using the registry at ${target} (${source})\n`);
    const presented = settings.REGISTRY_INTERNAL_TOKEN ?? credential;
    const line = async (text: string) => {
      await out.stdout(text);
    };
    const run = isEventCommand(command)
      ? runEventCommand(target, command, presented, line)
      : isWebhookCommand(command)
        ? runWebhookCommand(target, command, presented)
        : runCommand(target, command, presented);
    const result = await run.catch((err: unknown) => {
      // "a backend service is unavailable" alone would not tell the operator which address failed.
      if (err instanceof AppError && (err.code === 'UNAVAILABLE' || err.code === 'DEADLINE_EXCEEDED')) {
        throw new AppError(err.code, `${err.message} (registry at ${target})`, err.details, err);
      }
      if (err instanceof AppError && err.code === 'UNAUTHENTICATED') throw new AppError(err.code, `${err.message}: ${CREDENTIAL_HINT}`, err.details, err);
      throw err;
    });
    // events watch has written its lines as they came.
    if (result !== undefined) await printResult(out, result);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof UsageError) {
      out.stderr(`error: ${err.message}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    // An AppError's message is meant for the caller; anything else is reported without internals.
    const message = err instanceof AppError || err instanceof Error ? err.message : String(err);
    const field = err instanceof AppError && err.details.field ? ` (field ${err.details.field})` : '';
    out.stderr(`error: ${message}${field}\n`);
    return EXIT.failed;
  }
}
