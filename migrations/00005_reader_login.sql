-- +goose Up
-- The executor logs in AS analyticsbot_reader instead of switching to it with
-- SET ROLE: a session whose login role is a superuser (or any member of a
-- stronger role) could switch back with set_config('role', ...) from inside
-- a generated SELECT. Logged in as the reader, there is no role to switch to.
--
-- Attributes: no superuser, createdb, createrole, replication or RLS bypass,
-- no inherited memberships, a small connection limit. Per-database defaults
-- make every session read-only with short lock and idle timeouts, even one
-- opened by hand; the executor also sets them per transaction.
--
-- What cannot be revoked from this role alone: functions such as set_config,
-- pg_sleep, pg_advisory_lock, lo_create/lo_put, pg_notify, query_to_xml and
-- the catalog views are granted to PUBLIC, and revoking them from PUBLIC would
-- change every other role using this database. The read-only transaction
-- refuses nextval/setval and any table write; the ROLLBACK after every query
-- undoes large-object writes and NOTIFY; the per-statement timeout bounds
-- pg_sleep; DISCARD ALL drops session settings, advisory locks and listeners.
-- What remains (reading catalogs, sleeping up to the timeout, signalling other
-- reader sessions) is for the static guard, package sqlguard. See
-- docs/security.md. (00006 revokes the one function whose effect survives a
-- rollback: pg_logical_emit_message.)

-- +goose StatementBegin
DO $$
BEGIN
    ALTER ROLE analyticsbot_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT
        NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 32;
EXCEPTION WHEN internal_error THEN
    -- "tuple concurrently updated": a twin migration in another database.
    NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    setting text[];
BEGIN
    FOREACH setting SLICE 1 IN ARRAY ARRAY[
        ['default_transaction_read_only', 'on'],
        ['lock_timeout', '2s'],
        ['idle_in_transaction_session_timeout', '60s'],
        ['temp_buffers', '8MB'],
        ['work_mem', '64MB']
    ] LOOP
        EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I SET %I = %L',
                       current_database(), setting[1], setting[2]);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- The reader may connect to this database, and use nothing else in it but
-- what `demo load` (or the deployment) grants on the analytics schema.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO analyticsbot_reader', current_database());
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I RESET default_transaction_read_only', current_database());
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I RESET lock_timeout', current_database());
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I RESET idle_in_transaction_session_timeout', current_database());
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I RESET temp_buffers', current_database());
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I RESET work_mem', current_database());
END
$$;
-- +goose StatementEnd
