/** The request the README shows: a camera reporting motion, with everything the spec allows. */
export function exampleEvent(overrides: { device?: string; objectId?: string; domain?: string; eventType?: string } = {}) {
  return {
    source: {
      device_name: overrides.device ?? 'camera-entrance-01',
      object_id: overrides.objectId ?? 'channel-1',
      object_domain: overrides.domain ?? 'acme.camera.video',
      object_name: 'Entrance camera, channel 1',
      object_type: 'video_channel',
    },
    event: {
      event_type: {
        event_type: overrides.eventType ?? 'motion_detected',
        display_name: 'Motion detected',
        display_description: 'Motion was detected in the field of view',
      },
      event_data: {
        event_additional_properties: { zone: 'lobby', confidence: '0.93' },
        images: ['https://cdn.example.com/snapshots/1.jpg'],
        video_clips: ['https://cdn.example.com/clips/1.mp4'],
      },
    },
  };
}
