-- +goose Up
-- Who a conversation started outside Slack belongs to: the web chat's
-- threads are its asker's alone (the user id of the request: "web" or
-- "token:<name>"). The server issues their ids and records the owner
-- here, so every replica sharing the database refuses them to anyone else.
-- Slack threads get a row when the bot is first asked in them (its asker,
-- store.AskedIn), so every replica answers replies in them before a turn
-- is saved; the row makes nobody their owner: the channel's rules decide
-- who reads them.
CREATE TABLE threads (
    id         text PRIMARY KEY,
    owner_id   text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- Serves the retention of threads left without turns.
CREATE INDEX threads_created ON threads (created_at);

-- Existing web threads belong to whoever asked first in them,
INSERT INTO threads (id, owner_id, created_at)
SELECT DISTINCT ON (thread_id) thread_id, user_id, created_at
FROM conversation_turns
WHERE thread_id ~ '^web-[0-9a-f]{32}$'
ORDER BY thread_id, created_at, id;

-- and those that only a schedule still posts to, to the schedule's owner.
INSERT INTO threads (id, owner_id, created_at)
SELECT DISTINCT ON (thread) thread, owner_id, created_at
FROM (SELECT source_thread AS thread, owner_id, created_at FROM schedules
      UNION ALL
      SELECT dest_thread, owner_id, created_at FROM schedules) AS made
WHERE thread ~ '^web-[0-9a-f]{32}$'
ORDER BY thread, created_at
ON CONFLICT (id) DO NOTHING;

-- +goose Down
DROP TABLE threads;
