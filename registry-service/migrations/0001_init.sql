-- Devices, objects, event types and events. Every identity has a UNIQUE constraint (here the
-- primary key), so INSERT ... ON CONFLICT DO NOTHING can tell a first sighting from a reuse and
-- concurrent first sightings never create duplicates, with or without the Redis lock.
-- Natural keys are the identities the spec defines; they never change (entities are never
-- renamed or deleted), so events can reference them without a lookup.

CREATE TABLE devices (
  device_name text PRIMARY KEY,
  kind        text NOT NULL DEFAULT 'generic',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE objects (
  -- The full identifier "{object_domain}.{object_id}": the object's identity per the spec.
  id            text PRIMARY KEY,
  object_domain text NOT NULL,
  object_id     text NOT NULL,
  object_name   text NOT NULL,
  object_type   text NOT NULL,
  device_name   text NOT NULL REFERENCES devices (device_name),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT objects_id_is_domain_dot_object_id CHECK (id = object_domain || '.' || object_id)
);
CREATE INDEX objects_device_name_idx ON objects (device_name);

CREATE TABLE event_types (
  domain              text NOT NULL,
  event_type          text NOT NULL,
  display_name        text NOT NULL,
  display_description text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (domain, event_type)
);

CREATE TABLE events (
  id                    uuid PRIMARY KEY,
  -- The object's full identifier; rels are derived from it.
  object_ref            text NOT NULL REFERENCES objects (id),
  device_name           text NOT NULL REFERENCES devices (device_name),
  -- The object domain as sent, which is also the event type's domain.
  domain                text NOT NULL,
  event_type            text NOT NULL,
  images                text[] NOT NULL DEFAULT '{}',
  video_clips           text[] NOT NULL DEFAULT '{}',
  additional_properties jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (domain, event_type) REFERENCES event_types (domain, event_type),
  CONSTRAINT events_additional_properties_is_object CHECK (jsonb_typeof(additional_properties) = 'object')
);
CREATE INDEX events_object_ref_created_at_idx ON events (object_ref, created_at);
CREATE INDEX events_domain_event_type_created_at_idx ON events (domain, event_type, created_at);
CREATE INDEX events_device_name_created_at_idx ON events (device_name, created_at);
