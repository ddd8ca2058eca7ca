-- +goose Up
-- The address a cached result was run for, beside its user, channel and
-- policy (00023). Row-level security reads the signed address
-- (analyticsbot_identity.user_email()), so the same Slack user asks as
-- someone else once their address changes, or while Slack cannot tell it:
-- rows run under the old address are theirs no longer. Results stored
-- before are for no address (''); this version serves them only to a
-- reader with no address either, and runs the query again for anyone else.
-- A previous-version replica writing during a rolling upgrade left the
-- address of the rows it replaced, not '': 00027 makes its writes no one's.
ALTER TABLE query_results ADD COLUMN run_for_email text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE query_results DROP COLUMN run_for_email;
