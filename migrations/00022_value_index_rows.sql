-- +goose Up
-- How many rows of each indexed column hold one of its values, as the
-- refresh read them (warehouse.ColumnValues.Rows): a column whose values
-- repeat across rows holds codes, whose values the prompt lists whole
-- (store.DB.ListedValues); one whose every value is in about one row
-- (the names, emails and phone numbers of a 20-row customers table) does
-- not. NULL: unknown, so listed by the count of distinct values alone, as
-- before; that covers the rows of the refreshes before this column, of a
-- backend that does not count rows (Cube), and those a replica of an
-- earlier version, which does not know the column, adds during a rolling
-- upgrade. A row such a replica refreshes keeps the count a new one wrote,
-- which may then be out of date until a new replica refreshes it again.
ALTER TABLE value_index_columns ADD COLUMN row_count bigint;

-- +goose Down
ALTER TABLE value_index_columns DROP COLUMN IF EXISTS row_count;
