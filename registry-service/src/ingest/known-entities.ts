/**
 * Identities already seen in the database, so later sightings skip the creation lock. Bounded
 * (least recently used go first); entities are never deleted, so an entry never goes stale in a
 * way that matters: the insert still runs, only the lock is skipped.
 */
export interface KnownEntities {
  has(key: string): boolean;
  add(key: string): void;
}

/** The cache's key of a device, an object (full id) and an event type (eventTypeKey()), also the creation locks' keys. */
export const deviceKey = (name: string): string => `device:${name}`;
export const objectKey = (id: string): string => `object:${id}`;
export const typeKey = (key: string): string => `event-type:${key}`;

export function createKnownEntities(maxEntries = 50_000): KnownEntities {
  const entries = new Set<string>();
  return {
    has(key) {
      if (!entries.has(key)) return false;
      // Re-insert to mark as recently used (a Set iterates in insertion order).
      entries.delete(key);
      entries.add(key);
      return true;
    },
    add(key) {
      entries.delete(key);
      entries.add(key);
      if (entries.size > maxEntries) {
        const oldest = entries.values().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
    },
  };
}
