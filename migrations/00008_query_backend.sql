-- +goose Up
-- A stored query names the backend it was written for ("postgres", "cube"),
-- so a button never runs it against another one. Queries stored before this
-- migration were Cube queries when they are JSON objects, SQL otherwise.
ALTER TABLE conversation_turns ADD COLUMN backend text NOT NULL DEFAULT '';
ALTER TABLE query_results ADD COLUMN backend text NOT NULL DEFAULT '';
-- Which cap cut a cached result ("rows" or "bytes"), so a button press on
-- it says the same as the answer did.
ALTER TABLE query_results ADD COLUMN limited_by text NOT NULL DEFAULT '';
UPDATE conversation_turns
SET backend = CASE WHEN ltrim(sql) LIKE '{%' THEN 'cube' ELSE 'postgres' END
WHERE sql <> '';
UPDATE query_results
SET backend = CASE WHEN ltrim(sql) LIKE '{%' THEN 'cube' ELSE 'postgres' END
WHERE sql <> '';

-- +goose Down
ALTER TABLE conversation_turns DROP COLUMN backend;
ALTER TABLE query_results DROP COLUMN backend;
ALTER TABLE query_results DROP COLUMN limited_by;
