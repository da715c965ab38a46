import { invalidArgument } from '@dynamic-events/proto';

/** Where a watch stands: every change of commits before `seq` delivered, and of `seq` up to `index` ('end': all). */
export interface Position {
  seq: bigint;
  index: number | 'end';
}

/** No cursor of ours comes near this; longer input is refused before it is decoded. */
const MAX_CURSOR_LENGTH = 256;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const SEQ = /^\d{1,19}$/;

/**
 * Opaque cursors: base64url of a small JSON document holding the commit log's identity (so a cursor
 * of another deployment is refused, not misread) and the position. A cursor carries a position,
 * not a secret: editing one only moves its holder's own position.
 */
export function encodeCursor(logId: string, p: Position): string {
  return Buffer.from(JSON.stringify({ w: 2, l: logId, s: p.seq.toString(), i: p.index })).toString('base64url');
}

/** The position a cursor holds; INVALID_ARGUMENT naming after_cursor when it is not a cursor of this log. */
export function decodeCursor(cursor: string, logId: string): Position {
  const bad = (why: string) => invalidArgument('after_cursor', 'cursor', `after_cursor is ${why}`);
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw bad('malformed');
  let doc: { w?: unknown; l?: unknown; s?: unknown; i?: unknown } | null;
  try {
    doc = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof doc;
  } catch {
    throw bad('malformed');
  }
  if (typeof doc !== 'object' || doc === null || doc.w !== 2 || typeof doc.s !== 'string' || !SEQ.test(doc.s)) throw bad('malformed');
  const { i: index } = doc;
  if (index !== 'end' && !(typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < 1_000_000)) throw bad('malformed');
  if (doc.l !== logId) throw bad('from another deployment (another database)');
  return { seq: BigInt(doc.s), index };
}
