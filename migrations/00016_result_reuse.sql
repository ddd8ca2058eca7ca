-- +goose Up
-- Results that ran, by dataset (the backend's fingerprint of the query) and
-- who asked (user, channel, access policy: what row scoping and policies
-- depend on), so RESULT_FRESHNESS can answer the same person's same query
-- from a recent result without running it. A row goes with its result.
CREATE TABLE result_datasets (
    thread_id   text NOT NULL,
    query_id    text NOT NULL,
    dataset_key text NOT NULL,
    user_id     text NOT NULL,
    channel_id  text NOT NULL,
    policy      text NOT NULL,
    PRIMARY KEY (thread_id, query_id),
    FOREIGN KEY (thread_id, query_id) REFERENCES query_results (thread_id, query_id) ON DELETE CASCADE
);
CREATE INDEX result_datasets_asker ON result_datasets (dataset_key, user_id, channel_id, policy);

-- +goose Down
DROP TABLE result_datasets;
