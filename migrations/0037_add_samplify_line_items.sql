-- 0037: a run fielded through Dynata's Samplify API (api/src/samplify; docs/decisions.md
-- "Samplify"): the run's line item (its market) in its Samplify project (samplify_project_id, 0004),
-- and the line item's state there.
alter table survey_runs
  add column samplify_line_item_id text,
  add column samplify_state text;
