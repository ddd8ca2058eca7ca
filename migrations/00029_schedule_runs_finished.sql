-- +goose Up
-- Retention deletes the finished runs of schedules oldest first, 5000 at
-- a time, by finished_at (store's deleteScheduleRuns), which no index
-- held: each batch read the whole of schedule_runs and sorted it. Runs
-- under way (finished_at NULL) are never deleted, so the index leaves
-- them out.
CREATE INDEX schedule_runs_finished ON schedule_runs (finished_at) WHERE finished_at IS NOT NULL;

-- +goose Down
DROP INDEX schedule_runs_finished;
