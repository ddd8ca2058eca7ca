-- +goose Up
-- Slack delivers an event again when it did not see the acknowledgement in
-- time, and several bot processes may share one database. A delivery is
-- processed by whoever inserts its key first; the others skip it.
CREATE TABLE slack_deliveries (
    key         text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX slack_deliveries_received_at_idx ON slack_deliveries (received_at);

-- +goose Down
DROP TABLE IF EXISTS slack_deliveries;
