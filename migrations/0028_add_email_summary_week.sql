-- 0033: the weekly results email (ProjectEmailSummaries, the `ai.email-summaries` job): one per
-- project and week (the Monday it is for), so a job that runs twice sends nothing twice.
alter table project_email_summaries
  add column week_of date,
  add column error text;
create unique index project_email_summaries_week on project_email_summaries (project_id, week_of) where week_of is not null;
