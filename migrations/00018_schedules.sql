-- +goose Up
-- Scheduled questions and alerts: an answer's query that runs again by
-- itself, without the model, under its owner's access policy, and posts
-- where it was told. Due runs are claimed with FOR UPDATE SKIP LOCKED and a
-- lease (claimed_by, claimed_until), so replicas never run one twice and a
-- crashed replica's claim is taken over once its lease ends.
CREATE TABLE schedules (
    id             text PRIMARY KEY,
    -- pending (waiting for its owner to confirm), active, paused, stopped
    -- (the bot stopped it: stop_reason says why).
    state          text NOT NULL CHECK (state IN ('pending', 'active', 'paused', 'stopped')),
    owner_id       text NOT NULL,
    owner_email    text NOT NULL DEFAULT '',
    -- Where it was made and where it posts: slack, web or cli.
    surface        text NOT NULL,
    source_thread  text NOT NULL,
    source_channel text NOT NULL,
    backend        text NOT NULL,
    query          text NOT NULL,
    query_id       text NOT NULL,
    question       text NOT NULL,
    spec           text NOT NULL,
    time_zone      text NOT NULL,
    dest_kind      text NOT NULL CHECK (dest_kind IN ('thread', 'channel', 'dm')),
    dest_channel   text NOT NULL,
    dest_thread    text NOT NULL DEFAULT '',
    dest_name      text NOT NULL DEFAULT '',
    format         text NOT NULL CHECK (format IN ('answer', 'csv')),
    cond_kind      text NOT NULL DEFAULT '',
    cond_threshold double precision NOT NULL DEFAULT 0,
    cond_column    text NOT NULL DEFAULT '',
    -- due_at is the regular run the next attempt belongs to; next_run_at
    -- is when that attempt is due (later than due_at for a retry).
    due_at         timestamptz,
    next_run_at    timestamptz,
    -- failures counts the runs in a row that failed, each told to the
    -- owner; at 5 the schedule stops.
    failures       integer NOT NULL DEFAULT 0,
    last_run_at    timestamptz,
    last_outcome   text NOT NULL DEFAULT '',
    last_value     double precision,
    stop_reason    text NOT NULL DEFAULT '',
    claimed_by     text,
    claimed_until  timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE state = 'active';
CREATE INDEX schedules_owner ON schedules (owner_id);
CREATE INDEX schedules_dest ON schedules (dest_channel);

-- Every attempt of every run: who ran it, what it found, where it posted.
CREATE TABLE schedule_runs (
    id           bigserial PRIMARY KEY,
    schedule_id  text NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    due_at       timestamptz NOT NULL,
    attempt      integer NOT NULL,
    runner       text NOT NULL,
    started_at   timestamptz NOT NULL,
    finished_at  timestamptz,
    -- running, posted, quiet (an alert whose condition did not hold),
    -- failed, refused (the owner's policy no longer allows it), abandoned
    -- (its runner stopped; another took it over).
    outcome      text NOT NULL DEFAULT 'running',
    row_count    integer,
    value        double precision,
    previous     double precision,
    error_kind   text NOT NULL DEFAULT '',
    error_detail text NOT NULL DEFAULT '',
    -- delivering_at: the runner started posting; with no posted_ts, a
    -- runner taking the run over asks the surface whether it was posted.
    delivering_at  timestamptz,
    posted_channel text NOT NULL DEFAULT '',
    posted_ts    text NOT NULL DEFAULT '',
    UNIQUE (schedule_id, due_at, attempt)
);
CREATE INDEX schedule_runs_started ON schedule_runs (started_at);

-- +goose Down
DROP TABLE schedule_runs;
DROP TABLE schedules;
