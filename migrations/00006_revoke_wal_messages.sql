-- +goose Up
-- pg_logical_emit_message is executable by PUBLIC and writes a WAL record
-- that ROLLBACK does not remove, even in a read-only transaction: generated
-- SQL could fill the WAL disk or inject messages into logical decoding. No
-- analytics needs it, and nothing but replication tooling (which runs as a
-- superuser or replication role) calls it, so PUBLIC loses it in this
-- database. Function privileges are per database: other databases of the
-- cluster are unaffected. Without the privilege to revoke (the bot's own
-- role is not a superuser), the migration says so and continues: the static
-- guard still rejects the function.

-- +goose StatementBegin
DO $$
BEGIN
    REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text) FROM PUBLIC;
    REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, bytea) FROM PUBLIC;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'cannot revoke pg_logical_emit_message from PUBLIC (%): the static guard still rejects it', SQLERRM;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    GRANT EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text) TO PUBLIC;
    GRANT EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, bytea) TO PUBLIC;
EXCEPTION WHEN insufficient_privilege THEN
    NULL;
END
$$;
-- +goose StatementEnd
