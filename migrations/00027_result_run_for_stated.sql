-- +goose Up
-- A result's rows are someone's only when the write that stored them says
-- whose. Put has written who a result was run for with its rows since
-- 00023, but a replica of an earlier version, still serving during a
-- rolling upgrade (docs/scaling.md: `migrate` runs before the new version
-- starts), replaces a thread's result without touching run_for_*, or
-- without run_for_email (00024): its rows, Bob's, stayed recorded as run
-- for the one before, Ana, and Export CSV and RESULT_FRESHNESS gave them
-- to her. Now every write of a result states its asker in run_for_stated,
-- which this version's Put sets and no earlier one knows; a write that
-- does not leaves the result no one's (run_for_* empty), never served from
-- the cache to anyone: its first export runs again for the presser. The
-- trigger puts run_for_stated back to false, so each write must state it
-- anew. An update that keeps the row's version (seq: every Put renews it)
-- stores no new rows and keeps their asker. Results stored before keep
-- theirs.
ALTER TABLE query_results ADD COLUMN run_for_stated boolean NOT NULL DEFAULT false;

-- +goose StatementBegin
CREATE FUNCTION query_results_run_for_stated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT NEW.run_for_stated AND (TG_OP = 'INSERT' OR NEW.seq IS DISTINCT FROM OLD.seq) THEN
        NEW.run_for_user := '';
        NEW.run_for_email := '';
        NEW.run_for_channel := '';
        NEW.run_for_policy := '';
    END IF;
    NEW.run_for_stated := false;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER query_results_run_for_stated BEFORE INSERT OR UPDATE ON query_results
    FOR EACH ROW EXECUTE FUNCTION query_results_run_for_stated();

-- +goose Down
DROP TRIGGER query_results_run_for_stated ON query_results;
DROP FUNCTION query_results_run_for_stated();
ALTER TABLE query_results DROP COLUMN run_for_stated;
