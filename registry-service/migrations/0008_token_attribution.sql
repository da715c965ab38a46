-- Who sent or created what (issue 9): the id of the token that sent each event, and of the token
-- whose event created each device, object and event type. Nullable, no default: adding them
-- rewrites no row, even on a table of 10 M events; NULL means no token (an open instance, or a
-- platform service calling the registry directly). No foreign key to tokens: token rows are never
-- deleted (revoking keeps them), and an FK check per inserted row would cost on the write path.
ALTER TABLE events ADD COLUMN token_id uuid;
ALTER TABLE devices ADD COLUMN created_by_token_id uuid;
ALTER TABLE objects ADD COLUMN created_by_token_id uuid;
ALTER TABLE event_types ADD COLUMN created_by_token_id uuid;

-- max_devices / max_objects: how many entities each token created, moved by the same statement that
-- creates them. That statement locks the token's row first (in id order), so concurrent statements
-- of one token take turns there and the count they check includes every committed creation.
ALTER TABLE tokens ADD COLUMN devices_created bigint NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN objects_created bigint NOT NULL DEFAULT 0;

-- Fails the statement that would take a token past its limit (nothing of it is committed); the
-- registry maps SQLSTATE DE403 to PERMISSION_DENIED for the event alone. A function, because a
-- plain statement cannot raise an error of its own choosing.
CREATE FUNCTION dynamic_events_token_limit(token_name text, kind text, max_count bigint) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'token ''%'' may not create more than % %', token_name, max_count, kind
    USING ERRCODE = 'DE403', DETAIL = kind;
END
$$;
