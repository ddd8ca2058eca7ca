-- +goose Up
-- The form of each example's fingerprint (warehouse.Dialect.FingerprintForm,
-- "pg-1", "cube-1"): at start, and while it serves, the bot re-fingerprints
-- only the examples of its backend whose form is earlier than its own or
-- unknown (store.DB.RefingerprintEarlier), rather than every example at
-- every start. NULL: unknown, so re-fingerprinted by the next start or
-- pass; that covers the rows stored before this column, and the rows a
-- replica of an earlier version, which does not know the column, still
-- adds during a rolling upgrade.
ALTER TABLE examples ADD COLUMN fingerprint_form text;

-- +goose Down
ALTER TABLE examples DROP COLUMN IF EXISTS fingerprint_form;
