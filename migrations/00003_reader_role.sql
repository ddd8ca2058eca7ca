-- +goose Up
-- The executor runs generated SQL as analyticsbot_reader (SET LOCAL ROLE inside
-- a read-only transaction), so the database itself refuses writes and reads of
-- anything not granted to the role. Roles are cluster-wide while this
-- migration runs once per database, possibly in several databases at the same
-- moment (parallel test databases), so every step tolerates a concurrent twin.

-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'analyticsbot_reader') THEN
        BEGIN
            CREATE ROLE analyticsbot_reader NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            -- Another database's migration created it between our check and now.
            NULL;
        END;
    END IF;
END
$$;
-- +goose StatementEnd

-- A role made earlier by hand (or by an older setup) may carry more power than
-- the executor assumes; bring it back to the intended attributes.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM pg_roles
        WHERE rolname = 'analyticsbot_reader'
          AND (rolsuper OR rolcreatedb OR rolcreaterole OR rolinherit)
    ) THEN
        BEGIN
            -- LOGIN is left alone: migration 00005 lets the executor log in
            -- as the reader, and this step runs again in every new database.
            ALTER ROLE analyticsbot_reader NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
        EXCEPTION WHEN internal_error THEN
            -- "tuple concurrently updated": a twin migration is doing the same.
            NULL;
        END;
    END IF;
END
$$;
-- +goose StatementEnd

-- The application's own role must be a member to SET ROLE to the reader.
-- +goose StatementBegin
DO $$
BEGIN
    -- pg_auth_members, not pg_has_role: the latter is always true for superusers.
    IF NOT EXISTS (
        SELECT 1
        FROM pg_auth_members m
        JOIN pg_roles r ON r.oid = m.roleid
        JOIN pg_roles u ON u.oid = m.member
        WHERE r.rolname = 'analyticsbot_reader' AND u.rolname = current_user
    ) THEN
        BEGIN
            EXECUTE format('GRANT analyticsbot_reader TO %I', current_user);
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
END
$$;
-- +goose StatementEnd

-- The reader gets nothing in public (where the bot's own tables live); the
-- deployment grants it USAGE and SELECT on the analytics schema only.
-- +goose StatementBegin
DO $$
BEGIN
    REVOKE ALL ON SCHEMA public FROM analyticsbot_reader;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'cannot revoke privileges on schema public from analyticsbot_reader: %', SQLERRM;
END
$$;
-- +goose StatementEnd

-- Defaults for sessions that log in as (or are set to) the reader; the executor
-- also sets them per transaction. They are set per database: one row of
-- pg_db_role_setting per database, so concurrent migrations of different
-- databases never update the same catalog row.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I SET statement_timeout = %L',
                   current_database(), '30s');
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I SET search_path = %I',
                   current_database(), 'analytics');
END
$$;
-- +goose StatementEnd

-- +goose Down
-- The role is shared by every database of the cluster, so it is neither
-- dropped nor taken away from the application role here: only what this
-- database gave it is reset.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER ROLE analyticsbot_reader IN DATABASE %I RESET ALL', current_database());
EXCEPTION WHEN undefined_object THEN
    NULL;
END
$$;
-- +goose StatementEnd
