-- +goose Up
-- The reply of a turn as the workflow produced it (package answer: text,
-- the shown rows, chart, assumptions, actions), so any surface can show it
-- again later: a reloaded web page restores whole answers, not their text.
-- json, not jsonb: it is only ever read back whole, and json keeps any
-- character the text had.
ALTER TABLE conversation_turns ADD COLUMN reply json;

-- +goose Down
ALTER TABLE conversation_turns DROP COLUMN reply;
