/** The console's screens, in navigation order, with the hash each one lives at. */
export const SCREENS = [
  { id: 'events', name: 'Events' },
  { id: 'devices', name: 'Devices' },
  { id: 'objects', name: 'Objects' },
  { id: 'event-types', name: 'Event types' },
  { id: 'tokens', name: 'Tokens' },
  { id: 'webhooks', name: 'Webhooks' },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

/** The screen a location hash names ("#/tokens"); Events when it names none. */
export function screenOf(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '');
  return SCREENS.find((screen) => screen.id === id)?.id ?? 'events';
}
