-- +goose Up
-- A cached result's rows are stored compressed (store.encodeRows: JSON
-- compressed with zstd) instead of as jsonb: a wide answer's 8.3 MB of JSON
-- goes over the wire as ~1.1 MB, and its numbers come back as they were
-- written (jsonb rewrote 1.234567e+06 as 1234567, read back as an integer).
-- Rows stored before become their JSON text, which the bot still reads.
ALTER TABLE query_results ALTER COLUMN rows DROP DEFAULT;
ALTER TABLE query_results ALTER COLUMN rows TYPE bytea USING convert_to(rows::text, 'UTF8');
ALTER TABLE query_results ALTER COLUMN rows SET DEFAULT '[]'::bytea;
-- Compressed rows do not compress again: PostgreSQL need not try.
ALTER TABLE query_results ALTER COLUMN rows SET STORAGE EXTERNAL;

-- +goose Down
-- jsonb cannot hold compressed rows: those results are dropped. They are a
-- cache: a button pressed on one runs its saved turn's query again.
DELETE FROM query_results WHERE substring(rows FROM 1 FOR 1) <> '['::bytea;
ALTER TABLE query_results ALTER COLUMN rows SET STORAGE EXTENDED;
ALTER TABLE query_results ALTER COLUMN rows DROP DEFAULT;
ALTER TABLE query_results ALTER COLUMN rows TYPE jsonb USING convert_from(rows, 'UTF8')::jsonb;
ALTER TABLE query_results ALTER COLUMN rows SET DEFAULT '[]';
