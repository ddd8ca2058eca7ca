-- +goose Up
-- How an alert's percentage threshold ("above 5%") reads against its
-- column (package schedule's ThresholdUnit): '' a plain number as written,
-- 'percent' a percentage compared as written, 'fraction' a percentage
-- compared as the fraction it is (5% as 0.05), decided when the alert was
-- made from the answer's values. Schedules saved before read as written,
-- as they always did.
ALTER TABLE schedules ADD COLUMN cond_unit text NOT NULL DEFAULT ''
    CHECK (cond_unit IN ('', 'percent', 'fraction'));

-- +goose Down
-- An earlier binary compares the threshold as written: a percentage read
-- as a fraction goes back as the fraction it was compared with.
UPDATE schedules SET cond_threshold = cond_threshold / 100 WHERE cond_unit = 'fraction';
ALTER TABLE schedules DROP COLUMN cond_unit;
