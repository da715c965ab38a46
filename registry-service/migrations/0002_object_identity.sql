-- Two different (object_domain, object_id) pairs can spell one full id: ("col.a.b", "c") and
-- ("col.a", "b.c") both give "col.a.b.c". The full id stays the object's identity, but an event must
-- name its object with the domain the object was created with: events now reference
-- (id, object_domain), so an event whose domain differs from the existing object's fails its
-- statement (and is refused with 409) instead of being attached to another domain's object.
-- It replaces the plain reference to objects(id): still one foreign-key check per event.
ALTER TABLE objects ADD CONSTRAINT objects_id_object_domain_key UNIQUE (id, object_domain);
-- NOT VALID then VALIDATE: existing rows are checked under a lock that lets writes go on.
ALTER TABLE events ADD CONSTRAINT events_object_identity_fkey
  FOREIGN KEY (object_ref, domain) REFERENCES objects (id, object_domain) NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_object_identity_fkey;
ALTER TABLE events DROP CONSTRAINT events_object_ref_fkey;
