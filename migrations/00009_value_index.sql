-- +goose Up
-- The value index: the distinct values of the analytics data's text columns
-- (and Cube's string dimensions), so that a question's "Ubisoft" can be
-- matched to the stored 'Ubisoft', 'Ubisoft Entertainment' and 'Ubisoft®'
-- before the query is written. The bot fills it through the reader role
-- (package grounding); it lives here, in the bot's own schema.
--
-- pg_trgm matches the values. It is a trusted extension (PostgreSQL 13+):
-- the database's owner may create it. Where it cannot be created, the
-- value lookup stays off and everything else works.
-- +goose StatementBegin
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'the value lookup stays off: cannot create pg_trgm (%)', SQLERRM;
END
$$;
-- +goose StatementEnd

-- One row per column the index knows: how many distinct values it had at
-- the last refresh, and whether they are indexed (not when there were more
-- than VALUE_INDEX_MAX_DISTINCT).
CREATE TABLE value_index_columns (
    backend         text        NOT NULL,
    schema_name     text        NOT NULL,
    table_name      text        NOT NULL,
    column_name     text        NOT NULL,
    distinct_values integer     NOT NULL,
    indexed         boolean     NOT NULL,
    refreshed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (backend, schema_name, table_name, column_name)
);

CREATE TABLE value_index (
    backend     text NOT NULL,
    schema_name text NOT NULL,
    table_name  text NOT NULL,
    column_name text NOT NULL,
    value       text NOT NULL,
    FOREIGN KEY (backend, schema_name, table_name, column_name)
        REFERENCES value_index_columns ON DELETE CASCADE
);

CREATE INDEX value_index_column_idx ON value_index (backend, schema_name, table_name, column_name);

-- +goose Down
DROP TABLE IF EXISTS value_index;
DROP TABLE IF EXISTS value_index_columns;
