-- +goose Up
-- Who a query runs for, in a form the query cannot forge. The executor sets
-- analyticsbot.user_id, user_email and channel_id in each read-only
-- transaction, but any role may change its own settings: a query that
-- called set_config('analyticsbot.user_email', …) before a row-level
-- security policy read it would be someone else. So the executor also sets
-- analyticsbot.signature, an HMAC-SHA256 with a key only the bot's own
-- login reads (this table) over the three values, the backend's PID and
-- the transaction's start: useless in another transaction or session. The
-- functions of the schema <bot schema>_identity check it and return the
-- values, or NULL when a setting was changed (docs/security.md).
--
-- The key: 64 bytes (SHA-256's block, so HMAC uses it as it is) from four
-- version 4 UUIDs, 488 random bits of the server's strong random source.
-- ipad and opad are the key XOR 0x36 and 0x5c, HMAC's inner and outer
-- blocks, kept so the functions need no byte loop. Nobody but the owner
-- (the migrating login) may read it; the reader has no USAGE on this
-- schema either.
CREATE TABLE identity_key (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    key        bytea NOT NULL CHECK (octet_length(key) = 64),
    ipad       bytea NOT NULL,
    opad       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON identity_key FROM PUBLIC;

WITH k AS (
    SELECT decode(string_agg(replace(gen_random_uuid()::text, '-', ''), ''), 'hex') AS key
    FROM generate_series(1, 4)
)
INSERT INTO identity_key (key, ipad, opad)
SELECT key,
       (SELECT decode(string_agg(lpad(to_hex(get_byte(key, i) # 54), 2, '0'), '' ORDER BY i), 'hex') FROM generate_series(0, 63) i),
       (SELECT decode(string_agg(lpad(to_hex(get_byte(key, i) # 92), 2, '0'), '' ORDER BY i), 'hex') FROM generate_series(0, 63) i)
FROM k;

-- The functions live in a schema of their own, named after the bot's
-- (analyticsbot_identity by default), which every role may use: without a
-- signature of the bot's they return NULL, and a row-level security policy
-- must be able to call them as whichever role reads its table. They run as
-- their owner (to read the key) with a search_path of pg_catalog alone,
-- and only in the leader of a parallel query (a worker has another PID).
--
-- The signed message is the tag "analyticsbot identity 1" and the backend's
-- PID, the transaction's start in microseconds since 1970, the user id,
-- the email and the channel, each as a netstring (its length in UTF-8
-- bytes, ":", itself, ","): warehouse/pgwarehouse/identity.go signs the
-- same. The comparison hashes both sides first, so its time says nothing
-- about where they differ.
-- +goose StatementBegin
DO $migration$
DECLARE
    bot     text := current_schema();
    ident   text := current_schema() || '_identity';
    setting text;
BEGIN
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', ident);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO PUBLIC', ident);
    EXECUTE format($f$
        CREATE OR REPLACE FUNCTION %1$I.verified() RETURNS boolean
        LANGUAGE sql STABLE PARALLEL RESTRICTED SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        AS $body$
            SELECT coalesce(
                sha256(convert_to(encode(sha256(k.opad || sha256(k.ipad || convert_to(m.message, 'UTF8'))), 'hex'), 'UTF8'))
                = sha256(convert_to(coalesce(current_setting('analyticsbot.signature', true), ''), 'UTF8')),
                false)
            FROM %2$I.identity_key k,
                 (SELECT string_agg(octet_length(convert_to(v, 'UTF8')) || ':' || v || ',', '' ORDER BY n) AS message
                  FROM unnest(ARRAY[
                      'analyticsbot identity 1',
                      pg_backend_pid()::text,
                      (extract(epoch FROM transaction_timestamp()) * 1000000)::bigint::text,
                      coalesce(current_setting('analyticsbot.user_id', true), ''),
                      coalesce(current_setting('analyticsbot.user_email', true), ''),
                      coalesce(current_setting('analyticsbot.channel_id', true), '')
                  ]) WITH ORDINALITY AS f(v, n)) m
        $body$$f$, ident, bot);
    EXECUTE format('REVOKE ALL ON FUNCTION %I.verified() FROM PUBLIC', ident);
    -- user_email(), user_id() and channel_id(): each the setting of its
    -- name, when the signature holds.
    FOREACH setting IN ARRAY ARRAY['user_email', 'user_id', 'channel_id'] LOOP
        EXECUTE format($f$
            CREATE OR REPLACE FUNCTION %1$I.%2$I() RETURNS text
            LANGUAGE sql STABLE PARALLEL RESTRICTED SECURITY DEFINER
            SET search_path = pg_catalog, pg_temp
            AS $body$
                SELECT CASE WHEN %1$I.verified() THEN nullif(current_setting(%3$L, true), '') END
            $body$$f$, ident, setting, 'analyticsbot.' || setting);
    END LOOP;
    -- Explicitly: default privileges (access apply takes EXECUTE on new
    -- functions from PUBLIC) must not keep a policy from calling them.
    EXECUTE format('GRANT EXECUTE ON FUNCTION %1$I.user_email(), %1$I.user_id(), %1$I.channel_id() TO PUBLIC', ident);
END
$migration$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $migration$
DECLARE
    ident text := current_schema() || '_identity';
BEGIN
    -- No CASCADE: a row-level security policy that calls them stops this.
    EXECUTE format('DROP FUNCTION IF EXISTS %1$I.user_email(), %1$I.user_id(), %1$I.channel_id(), %1$I.verified()', ident);
    EXECUTE format('DROP SCHEMA IF EXISTS %I', ident);
END
$migration$;
-- +goose StatementEnd
DROP TABLE identity_key;
