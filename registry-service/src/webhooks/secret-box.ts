import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** The Standard Webhooks secret form: "whsec_" and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a whsec_ secret (what HMAC signs with). */
export function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

/** Bytes of WEBHOOK_SECRET_KEY: AES-256. */
const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** First byte of a sealed secret: the format, so a later one can be told apart. */
const FORMAT = 1;

/**
 * Seals signing secrets with AES-256-GCM under WEBHOOK_SECRET_KEY, which never reaches the database:
 * a dump alone holds no secret. The webhook's id is the additional data, so a sealed secret copied to
 * another webhook's row does not open.
 */
export interface SecretBox {
  seal(webhookId: string, secret: string): Buffer;
  open(webhookId: string, sealed: Buffer): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`the webhook secret key must be ${SECRET_KEY_BYTES} bytes`);
  return {
    seal(webhookId, secret) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(webhookId, 'utf8'));
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body]);
    },
    open(webhookId, sealed) {
      if (sealed[0] !== FORMAT) throw new Error('a sealed webhook secret of an unknown format');
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(webhookId, 'utf8')).setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The webhook-signature header (Standard Webhooks v1): "v1,<base64 HMAC-SHA256 of
 * {id}.{timestamp}.{body}>" for each secret, space-separated (two during a rotation).
 */
export function signatureHeader(keys: readonly Buffer[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return keys.map((key) => `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`).join(' ');
}
