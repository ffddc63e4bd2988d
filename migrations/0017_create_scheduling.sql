-- Scheduling and waves (docs/decisions.md "Scheduling and waves"): the scheduler's state on each
-- project schedule. A schedule is Scheduled until it comes due; the scheduler job then charges it
-- (a DelayCharge wave), stamps started_at and marks it ReadyToLaunch for the fielding domain; when
-- the balance cannot cover the charge it is Blocked with a reason (retried every tick, notified
-- once). started_at is the idempotency key: a started schedule is never started again.
alter table project_schedules
  add column launch_state text not null default 'Scheduled' check (launch_state in ('Scheduled', 'ReadyToLaunch', 'Blocked')),
  add column started_at timestamptz(3),
  add column blocked_reason text,
  add column blocked_at timestamptz(3);

-- The scheduler's (and ToRun's) scan: due, unrun, not started.
create index project_schedules_to_start on project_schedules (schedule_date) where survey_run_id is null and started_at is null;

-- The notification a Blocked wave sends (ids after SPEC 4's eight; ours).
insert into notification_types (id, name, description, default_title) values
  (30, 'ScheduleBlocked', 'A scheduled wave could not start: the balance cannot cover its charge', 'A scheduled wave is blocked')
on conflict (id) do nothing;
