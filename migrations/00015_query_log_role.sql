-- +goose Up
-- The database role a turn's queries ran as (the reader, or an access
-- policy's role after `analyticsbot access apply`), for the audit; empty
-- for turns that ran no query or a backend without roles (Cube).
ALTER TABLE chat_query_logs ADD COLUMN db_role text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE chat_query_logs DROP COLUMN db_role;
