-- +goose Up
-- When the first question of a Slack thread was answered, whatever its
-- outcome: a reply in the thread that reaches another replica meanwhile
-- waits for that answer (store.FirstTurnPending), and a first question
-- whose path saves no turn (a schedule's list, a rating) must not keep
-- replies waiting. NULL while the first question is being answered, and
-- for web threads and threads recorded by an earlier version.
ALTER TABLE threads ADD COLUMN first_answered_at timestamptz;

-- +goose Down
ALTER TABLE threads DROP COLUMN first_answered_at;
