-- +goose Up
-- Text columns are NOT NULL DEFAULT '' so that an absent value (a turn that
-- ran no query) reads back as the empty string the Go type already uses.
CREATE TABLE conversation_turns (
    id           bigserial PRIMARY KEY,
    thread_id    text        NOT NULL,
    user_id      text        NOT NULL DEFAULT '',
    channel_id   text        NOT NULL DEFAULT '',
    user_message text        NOT NULL DEFAULT '',
    -- The application truncates this to 500 characters before inserting.
    bot_response text        NOT NULL DEFAULT '',
    intent       text        NOT NULL DEFAULT '',
    sql          text        NOT NULL DEFAULT '',
    query_id     text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- Serves "the last N turns of a thread" and "the latest turn with SQL".
CREATE INDEX conversation_turns_thread_created_idx
    ON conversation_turns (thread_id, created_at DESC);

-- Serves the periodic cleanup of old turns.
CREATE INDEX conversation_turns_created_idx
    ON conversation_turns (created_at);

-- +goose Down
DROP TABLE IF EXISTS conversation_turns;
