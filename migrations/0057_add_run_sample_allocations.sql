-- 0057: a supplier run's sample from several suppliers, each with its allocation (issue 36,
-- docs/decisions/0146). A run without rows here takes its one supplier's respondents
-- (survey_runs.sample_supplier_id) up to the run's quota, as before. With rows, each supplier's
-- share of the run's completes is its cap: an entry of a supplier whose cap is met goes back to it
-- over quota. survey_runs.sample_supplier_id stays the first allocation's supplier, so the run's
-- sample source (migration 0047) reads `supplier`. Staff write it (SurveyRuns SetSampleAllocations).
create table survey_run_allocations (
  survey_run_id integer not null references survey_runs (id) on delete cascade,
  sample_supplier_id integer not null references sample_suppliers (id),
  share numeric(5, 2) not null check (share > 0 and share <= 100),
  position smallint not null check (position >= 0),
  created_at timestamptz(3) not null default now(),
  primary key (survey_run_id, sample_supplier_id),
  unique (survey_run_id, position)
);
