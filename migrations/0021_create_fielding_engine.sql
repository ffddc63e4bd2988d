-- 0021: the fielding engine (api/src/domains/fielding; docs/decisions.md "Fielding").
--
-- A survey run carries one project in one region on one panel (we create one run per project,
-- region and panel; the schema still allows several projects per run through the schedules). Its
-- definition is a snapshot of the questionnaire taken when the run is created
-- (CreateDecipherSurveys), so editing the project later never changes a live survey.
-- A respondent's answers are kept raw on the session (answers, keyed by question and test option)
-- until processing turns a complete session into responses; page is the next page to answer.
alter table survey_runs
  add column definition jsonb,
  add column weighting jsonb,                  -- the raking report of the last processing
  add column simulated_seed integer,
  add column error_message text;

alter table survey_sessions
  add column answers jsonb not null default '{}' check (jsonb_typeof(answers) = 'object'),
  add column test_option_order integer[] not null default '{}',
  add column page integer not null default 0 check (page >= 0),
  add column end_reason text,
  add column processed_at timestamptz(3);

-- One response per respondent: a panel's respondent id answers a run once.
create unique index survey_sessions_run_panel_respondent on survey_sessions (survey_run_id, panel_respondent_id)
  where panel_respondent_id is not null;
-- Quotas and the close-at-quota rule count completes per run.
create index survey_sessions_run_complete on survey_sessions (survey_run_id) where status = 'Complete';

-- Processing writes responses once per project survey session: a retried job finds the rows.
create index responses_project_survey_session on responses (project_survey_session_id);
create index text_responses_project_survey_session on text_responses (project_survey_session_id);
