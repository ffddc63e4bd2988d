-- 0041: the norms' rollup. A benchmark (Projects Benchmarks, QualResults with benchmarkTypeId)
-- averages the weighted top-2-box of every comparable completed project; reading those from the
-- responses scans every comparable project's rows (10 million in bench:results). norm_cells holds
-- per project, standard question, region and week (the only response-level keys a norm filters
-- on) the weighted sums and respondents, written when a run is processed and, for a project whose
-- results version (0040) moved since, before a norm is read (domains/results/norms.ts).
create table norm_cells (
  project_id integer not null,
  client_id integer not null,
  standard_question_id integer not null,
  region_id integer not null,
  week integer,                 -- project_survey_sessions.week (NPD: week since launch)
  sum_w double precision not null,        -- Σ weight of the answers on the 4-point scale
  sum_w_top2 double precision not null,   -- Σ weight of those in the top 2 boxes (value <= 2)
  respondents integer not null,           -- distinct respondents of the cell
  foreign key (project_id, client_id) references projects (id, client_id) on delete cascade
);
create index norm_cells_project on norm_cells (project_id, standard_question_id, region_id, week)
  include (sum_w, sum_w_top2, respondents);

-- The results version (0040) each project's cells were built from.
create table norm_versions (
  project_id integer primary key,
  client_id integer not null,
  version bigint not null,
  foreign key (project_id, client_id) references projects (id, client_id) on delete cascade
);

alter table norm_cells enable row level security;
alter table norm_cells force row level security;
create policy tenant_isolation on norm_cells
  using ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))
  with check ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]));
alter table norm_versions enable row level security;
alter table norm_versions force row level security;
create policy tenant_isolation on norm_versions
  using ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))
  with check ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]));
