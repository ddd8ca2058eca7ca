-- +goose Up
-- What went wrong in a failed turn, for the people who run the bot: the
-- reference the user was given (e.g. "e-3f9a1c2b") and the detail behind
-- it (the database's or the model's own words, with any key-like text
-- masked), so `analyticsbot logs --errors` can say what to fix, such as the
-- GRANT a missing privilege needs.
ALTER TABLE chat_query_logs ADD COLUMN error_ref text NOT NULL DEFAULT '';
ALTER TABLE chat_query_logs ADD COLUMN error_detail text NOT NULL DEFAULT '';
-- `analyticsbot logs --user U123`: one person's turns, newest first.
CREATE INDEX chat_query_logs_user_created_idx ON chat_query_logs (user_id, created_at DESC);

-- +goose Down
DROP INDEX chat_query_logs_user_created_idx;
ALTER TABLE chat_query_logs DROP COLUMN error_detail;
ALTER TABLE chat_query_logs DROP COLUMN error_ref;
