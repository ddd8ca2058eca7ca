-- +goose Up
-- One row per turn, written as soon as the turn ends, for `analyticsbot logs`
-- (volume, outcomes, latency per node, model usage). Rows hold the user's
-- question, so they are kept for a week by default (QUERY_LOG_RETENTION) and
-- the retention loop deletes them in batches.
CREATE TABLE chat_query_logs (
    id                bigserial        PRIMARY KEY,
    created_at        timestamptz      NOT NULL DEFAULT now(),
    -- The application keeps at most 4000 characters, the longest message
    -- the router accepts.
    question          text             NOT NULL DEFAULT '',
    thread_id         text             NOT NULL DEFAULT '',
    user_id           text             NOT NULL DEFAULT '',
    channel_id        text             NOT NULL DEFAULT '',
    intent            text             NOT NULL DEFAULT '',
    -- Executed nodes in order, repeats (retries) included.
    node_path         text[]           NOT NULL DEFAULT '{}',
    model_calls       integer          NOT NULL DEFAULT 0,
    prompt_tokens     integer          NOT NULL DEFAULT 0,
    completion_tokens integer          NOT NULL DEFAULT 0,
    row_count         integer          NOT NULL DEFAULT 0,
    -- Length of the reply text in characters, not bytes.
    response_chars    integer          NOT NULL DEFAULT 0,
    -- Empty for a turn that answered; else the error kind the user was told.
    error_kind        text             NOT NULL DEFAULT '',
    -- "sql" or "cube": where answers came from.
    backend           text             NOT NULL DEFAULT '',
    model_ms          double precision NOT NULL DEFAULT 0,
    db_ms             double precision NOT NULL DEFAULT 0,
    total_ms          double precision NOT NULL DEFAULT 0,
    -- Milliseconds per node name, summed over the node's attempts:
    -- {"generate_sql": 812.4, "validate_sql": 1.2, ...}.
    node_ms           jsonb            NOT NULL DEFAULT '{}'
);

-- Serves the time window of every summary and the retention deletes.
CREATE INDEX chat_query_logs_created_idx ON chat_query_logs (created_at);

-- Serves "top errors": failed turns are few, so a partial index stays small.
CREATE INDEX chat_query_logs_error_kind_idx
    ON chat_query_logs (error_kind, created_at)
    WHERE error_kind <> '';

-- The retention loop deletes cached results by age as well; without this
-- index every batch would scan the whole table.
CREATE INDEX query_results_created_idx ON query_results (created_at);

-- +goose Down
DROP INDEX IF EXISTS query_results_created_idx;
DROP TABLE IF EXISTS chat_query_logs;
