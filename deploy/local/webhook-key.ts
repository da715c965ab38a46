import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where `npm start` keeps the stack's WEBHOOK_SECRET_KEY: beside the embedded database it unlocks. */
const WEBHOOK_KEY_FILE = 'webhook-secret.key';

/**
 * The stack's WEBHOOK_SECRET_KEY when the variable is unset: read from DATA_DIR, or made once (32
 * random bytes, base64, readable by its owner only). It must outlive restarts: the webhooks' secrets
 * in the database open only with the key that sealed them.
 */
export async function stackWebhookKey(dataDir: string): Promise<string> {
  const path = join(dataDir, WEBHOOK_KEY_FILE);
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64');
  // wx: two stacks starting on one DATA_DIR at once cannot both write a key; the loser reads the winner's.
  await writeFile(path, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return (await readFile(path, 'utf8')).trim();
}
