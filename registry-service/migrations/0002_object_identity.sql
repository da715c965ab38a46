-- One full identifier names one object. ("col.a.b", "c") and ("col.a", "b.c") both give
-- "col.a.b.c": the second used to be attached silently to the first (ON CONFLICT (id) DO NOTHING).
-- An event now references its object by full id AND domain, so an event whose domain is not its
-- object's domain cannot be stored: the statement fails and the registry answers ALREADY_EXISTS
-- naming the existing object. This is the final guard; the domain reports the conflict.
ALTER TABLE objects ADD CONSTRAINT objects_id_object_domain_key UNIQUE (id, object_domain);

-- NOT VALID: rows stored before this migration (possibly such mismatches) are not re-checked, so
-- the migration needs no full scan of events; every new event is checked.
ALTER TABLE events
  ADD CONSTRAINT events_object_identity_fkey FOREIGN KEY (object_ref, domain) REFERENCES objects (id, object_domain) NOT VALID;

-- The single-column reference is implied by the pair: drop it so each insert still costs one check.
ALTER TABLE events DROP CONSTRAINT events_object_ref_fkey;
