-- +goose Up
-- An alert's percentage compared as a fraction ("above 5%" on error_rate
-- = 0.07) was stored as cond_threshold 5 with cond_unit 'fraction'
-- (00025). A replica of a version before 00025, still serving during a
-- rolling upgrade (docs/scaling.md: `migrate` runs before the new version
-- starts), knows no cond_unit and compared 5 with 0.07: "above 5%" stayed
-- quiet and "below 5%" posted at every run. Now such an alert is stored
-- as the fraction it is compared with, cond_threshold 0.05 and cond_unit
-- '', which every version compares as this one does (before 00025 as
-- written; from 00025 on, as written for any cond_unit but 'fraction'),
-- and its percent, for its words ("above 5% (0.05 in error_rate)"), in
-- cond_percent (store's storedCondition). Rows stored with 'fraction',
-- before or by a replica of 00025..00029 during the upgrade, are left as
-- they are: this version and those replicas read them alike, and no
-- replica of a version before 00025 serves beside a version that writes
-- them.
ALTER TABLE schedules ADD COLUMN cond_percent double precision,
    ADD CONSTRAINT schedules_cond_percent_check CHECK (cond_percent IS NULL OR cond_unit = '');

-- +goose Down
-- An earlier binary reads a percentage compared as a fraction from
-- cond_unit 'fraction' and the percent in cond_threshold.
ALTER TABLE schedules DROP CONSTRAINT schedules_cond_percent_check;
UPDATE schedules SET cond_threshold = cond_percent, cond_unit = 'fraction' WHERE cond_percent IS NOT NULL;
ALTER TABLE schedules DROP COLUMN cond_percent;
