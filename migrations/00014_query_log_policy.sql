-- +goose Up
-- The access policy (ACCESS_FILE) a turn was answered under, for the audit
-- of who read what: empty without an access file, or when the asker was
-- not admitted (error_kind not_admitted).
ALTER TABLE chat_query_logs ADD COLUMN policy text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE chat_query_logs DROP COLUMN policy;
