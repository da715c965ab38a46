-- Tokens (spec section 5: created and managed in the settings module) and the instance's
-- authentication settings. Only a secret's SHA-256 is stored: the secret is answered once, at
-- creation. Gateways hold a snapshot of both tables and ask for it again only when
-- auth_settings.version moved, so every token or settings change bumps it in the same statement.

CREATE TABLE tokens (
  id            uuid PRIMARY KEY,
  name          text NOT NULL,
  -- The secret's first characters, shown in lists to recognise a token (not secret).
  prefix        text NOT NULL,
  secret_sha256 bytea NOT NULL,
  -- The policy in the HTTP API's JSON shape; an absent member means no restriction.
  policy        jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The DYNAMIC_EVENTS_TOKEN row: written only at start-up from that setting, read-only otherwise.
  bootstrap     boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  expires_at    timestamptz,
  revoked_at    timestamptz,
  CONSTRAINT tokens_secret_sha256_key UNIQUE (secret_sha256),
  CONSTRAINT tokens_secret_sha256_is_sha256 CHECK (octet_length(secret_sha256) = 32),
  CONSTRAINT tokens_policy_is_object CHECK (jsonb_typeof(policy) = 'object')
);
-- A name identifies a token among the live ones; a revoked token's name may be used again. The
-- bootstrap row is left out (its name is reserved for it instead), so setting DYNAMIC_EVENTS_TOKEN
-- can never fail on a name an admin chose.
CREATE UNIQUE INDEX tokens_active_name_key ON tokens (name) WHERE revoked_at IS NULL AND NOT bootstrap;
-- At most one bootstrap row: replicas starting at once upsert it with ON CONFLICT on this index.
CREATE UNIQUE INDEX tokens_bootstrap_key ON tokens (bootstrap) WHERE bootstrap;

CREATE TABLE auth_settings (
  id            boolean PRIMARY KEY DEFAULT true CHECK (id),
  -- Off until the first token exists; from then on only an admin turns it off.
  require_token boolean NOT NULL DEFAULT false,
  -- Moves with every token or settings change (not with last_used_at): what gateways compare.
  version       bigint NOT NULL DEFAULT 1
);
INSERT INTO auth_settings DEFAULT VALUES;
