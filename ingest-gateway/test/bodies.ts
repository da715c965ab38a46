/** Test support: the spec's example request body, and a way to break it. */

/** The spec's example body; tests clone and break it. */
export function validBody(): Record<string, unknown> {
  return {
    source: {
      device_name: 'camera-01',
      object_id: 'channel-1',
      object_domain: 'acme.camera.motion',
      object_name: 'Front door',
      object_type: 'video_channel',
    },
    event: {
      event_type: { event_type: 'motion', display_name: 'Motion', display_description: 'Motion detected' },
      event_data: {
        event_additional_properties: { zone: 'north', confidence: '0.93' },
        images: ['https://example.test/a.jpg'],
        video_clips: ['https://example.test/a.mp4'],
      },
    },
  };
}

/** Deep-clones a body and applies a mutation (tests describe their breakage as a function). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests break the body in arbitrary, untyped ways
export function mutate(change: (body: Record<string, any>) => void): Record<string, unknown> {
  const body = structuredClone(validBody());
  change(body);
  return body;
}
