-- +goose Up
-- Results kept per thread so buttons (CSV export, chart, "show SQL") can be
-- served after the answer was posted. The thread is part of the key so one
-- thread can never read another thread's result.
CREATE TABLE query_results (
    thread_id  text        NOT NULL,
    query_id   text        NOT NULL,
    sql        text        NOT NULL DEFAULT '',
    question   text        NOT NULL DEFAULT '',
    columns    jsonb       NOT NULL DEFAULT '[]',
    rows       jsonb       NOT NULL DEFAULT '[]',
    row_count  integer     NOT NULL DEFAULT 0,
    truncated  boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- seq orders results of a thread by when they were last stored; created_at
    -- alone can tie (now() is the transaction start, microsecond precision).
    seq        bigserial   NOT NULL,
    PRIMARY KEY (thread_id, query_id)
);

CREATE INDEX query_results_thread_seq_idx ON query_results (thread_id, seq DESC);

-- +goose Down
DROP TABLE IF EXISTS query_results;
