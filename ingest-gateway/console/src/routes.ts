/** The console's screens, in navigation order, with the hash each one lives at. */
export const SCREENS = [
  { id: 'overview', name: 'Overview' },
  { id: 'events', name: 'Events' },
  { id: 'devices', name: 'Devices' },
  { id: 'objects', name: 'Objects' },
  { id: 'event-types', name: 'Event types' },
  { id: 'tokens', name: 'Tokens' },
  { id: 'webhooks', name: 'Webhooks' },
] as const;

export type ScreenId = (typeof SCREENS)[number]['id'];

/** The screen a location hash names ("#/tokens", "#/events?device_name=x"); Overview when it names none. */
export function screenOf(hash: string): ScreenId {
  const id = hash.replace(/^#\/?/, '').split('?')[0];
  return SCREENS.find((screen) => screen.id === id)?.id ?? 'overview';
}

/** The filters a location hash carries after its "?" ("#/events?device_name=x" → {device_name: "x"}). */
export function paramsOf(hash: string): Record<string, string> {
  const at = hash.indexOf('?');
  return at < 0 ? {} : Object.fromEntries(new URLSearchParams(hash.slice(at + 1)));
}

/** The hash of a screen with filters: a link from one screen to the records of another. */
export function screenHref(id: ScreenId, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(name, value);
  const text = query.toString();
  return text === '' ? `#/${id}` : `#/${id}?${text}`;
}
