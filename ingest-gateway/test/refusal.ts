import { expect } from 'vitest';

/**
 * A refusal's body: exactly its message and the field and rule it names (a 400 always names both;
 * other 4xx what they know: `rule` alone for a rate, say). Where a test states the field and the
 * rule themselves, it names them; elsewhere any string will do, but no other key.
 */
export function refusal(error: string, names: { field?: string | false; rule?: string | false } = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { error };
  if (names.field !== false) body.field = names.field ?? expect.any(String);
  if (names.rule !== false) body.rule = names.rule ?? expect.any(String);
  return body;
}
