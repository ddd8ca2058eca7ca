-- +goose Up
-- Who every cached result was run for, as far as its rows depend on it:
-- the user and channel (the row scoping the database applies: the signed
-- identity, row-level security) and the access policy it ran as (within a
-- channel's ceiling, the policy within it). Export CSV serves cached rows
-- only to the person they were run for; anyone else's export is run for
-- them, and RESULT_FRESHNESS reuses a result only for the same person.
-- This was kept in result_datasets, and only for results RESULT_FRESHNESS
-- remembered: a result stored without a record (a reused result kept for
-- another thread) replaced the rows of one that had one, under a record
-- naming someone else. Now Put writes it with the rows, in one statement,
-- and this version keeps only the dataset key in result_datasets.
--
-- Results stored before are no one's (empty): the first read of each runs
-- its query again for the reader. The old records are not copied over:
-- they may name someone other than the rows' person (above).
--
-- Not so for results a previous-version replica wrote during the rolling
-- upgrade: its upsert replaced a result's rows and left run_for_* as they
-- were, naming the replaced rows' person. 00027 makes such writes no one's.
ALTER TABLE query_results
    ADD COLUMN run_for_user    text NOT NULL DEFAULT '',
    ADD COLUMN run_for_channel text NOT NULL DEFAULT '',
    ADD COLUMN run_for_policy  text NOT NULL DEFAULT '';
-- result_datasets' asker columns stay, with defaults, for a replica of the
-- previous version still serving during a rolling upgrade (docs/scaling.md:
-- `migrate` runs before the new version starts): it writes and reads them
-- as before (its query_results rows, though, named the wrong person until
-- 00027), while this version writes the dataset key alone and reads the
-- asker from query_results. A later migration drops them.
ALTER TABLE result_datasets
    ALTER COLUMN user_id SET DEFAULT '',
    ALTER COLUMN channel_id SET DEFAULT '',
    ALTER COLUMN policy SET DEFAULT '';

-- +goose Down
ALTER TABLE result_datasets
    ALTER COLUMN user_id DROP DEFAULT, ALTER COLUMN channel_id DROP DEFAULT, ALTER COLUMN policy DROP DEFAULT;
UPDATE result_datasets d
SET user_id = r.run_for_user, channel_id = r.run_for_channel, policy = r.run_for_policy
FROM query_results r
WHERE r.thread_id = d.thread_id AND r.query_id = d.query_id AND d.user_id = '';
ALTER TABLE query_results DROP COLUMN run_for_user, DROP COLUMN run_for_channel, DROP COLUMN run_for_policy;
