-- +goose Up
-- Feedback: a user's 👍 or 👎 on an answer, with an optional note on what
-- was wrong (package store, feedback.go). One per user and answer: a second
-- press changes it. A 👍 on an answer makes its question and query a
-- candidate example (example_id).

-- The question a turn's query answers, as the bot understood it: a
-- follow-up's "And in 2017?" resolved into a question that stands alone.
ALTER TABLE conversation_turns ADD COLUMN question text NOT NULL DEFAULT '';
-- The answer a query log row is about, so feedback can point at it.
ALTER TABLE chat_query_logs ADD COLUMN query_id text NOT NULL DEFAULT '';
CREATE INDEX chat_query_logs_answer_idx ON chat_query_logs (thread_id, query_id) WHERE query_id <> '';

CREATE TABLE feedback (
    id           bigserial   PRIMARY KEY,
    thread_id    text        NOT NULL,
    query_id     text        NOT NULL,
    user_id      text        NOT NULL,
    channel_id   text        NOT NULL DEFAULT '',
    rating       smallint    NOT NULL CHECK (rating IN (-1, 1)),
    note         text        NOT NULL DEFAULT '',
    -- question is the answer's (resolved) question, kept with the feedback
    -- so reports outlive the turn's retention.
    question     text        NOT NULL DEFAULT '',
    turn_id      bigint      REFERENCES conversation_turns (id) ON DELETE SET NULL,
    query_log_id bigint      REFERENCES chat_query_logs (id) ON DELETE SET NULL,
    example_id   bigint      REFERENCES examples (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (thread_id, query_id, user_id)
);
-- For retention's deletes of turns and logs (ON DELETE SET NULL) and the
-- count of an example's 👍.
CREATE INDEX feedback_turn_idx ON feedback (turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX feedback_query_log_idx ON feedback (query_log_id) WHERE query_log_id IS NOT NULL;
CREATE INDEX feedback_example_idx ON feedback (example_id) WHERE example_id IS NOT NULL;
CREATE INDEX feedback_created_idx ON feedback (created_at);

-- +goose Down
DROP TABLE IF EXISTS feedback;
DROP INDEX IF EXISTS chat_query_logs_answer_idx;
ALTER TABLE chat_query_logs DROP COLUMN IF EXISTS query_id;
ALTER TABLE conversation_turns DROP COLUMN IF EXISTS question;
