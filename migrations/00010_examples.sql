-- +goose Up
-- Examples: questions with the query that answers them, retrieved for
-- similar questions and shown to the query generator (package store,
-- examples.go). They come from the examples file (SQL_EXAMPLES, loaded at
-- start), from users' 👍 (candidates) and from the data team (admin).
-- Verified examples rank above candidates; rejected ones are never used.
CREATE TABLE examples (
    id           bigserial   PRIMARY KEY,
    backend      text        NOT NULL,
    question     text        NOT NULL,
    query        text        NOT NULL,
    -- fingerprint is the same for the same query however it is written
    -- (pg_query's fingerprint for SQL, the normalised JSON of a Cube query).
    fingerprint  text        NOT NULL,
    assumptions  text[]      NOT NULL DEFAULT '{}',
    explanation  text        NOT NULL DEFAULT '',
    source       text        NOT NULL CHECK (source IN ('file', 'feedback', 'admin')),
    status       text        NOT NULL CHECK (status IN ('candidate', 'verified', 'rejected')),
    proposed_by  text        NOT NULL DEFAULT '',
    verified_by  text        NOT NULL DEFAULT '',
    verified_at  timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    times_used   bigint      NOT NULL DEFAULT 0,
    last_used_at timestamptz,
    search       tsvector    GENERATED ALWAYS AS (to_tsvector('english', question)) STORED,
    -- The question's embedding, with EXAMPLES_EMBEDDINGS on, and the model
    -- that made it (a change of model embeds the examples again).
    embedding       real[],
    embedding_model text        NOT NULL DEFAULT ''
);

-- One example per question and query (the question hashed: it may be long).
CREATE UNIQUE INDEX examples_question_query_idx ON examples (backend, fingerprint, md5(lower(question)));
CREATE INDEX examples_search_idx ON examples USING gin (search);
CREATE INDEX examples_verified_idx ON examples (backend, fingerprint) WHERE status = 'verified';

-- +goose Down
DROP TABLE IF EXISTS examples;
