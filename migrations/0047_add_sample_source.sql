-- 0047: a run's sample source, explicit (issue 36; docs/decisions/0122). Where a run's respondents
-- come from, read from the columns that already decide it, so it can never disagree with them:
--   supplier   an outside sample supplier's signed respondents (sample_supplier_id set);
--   customer   the team's own list at the run's link (the customer panel, sample_provider_id 2);
--   simulated  the simulated Ideally panel (fielding/simulate.ts), the product's own panel.
-- Staff set it with SurveyRuns SetSampleSource while the run has no respondent.
alter table survey_runs add column sample_source text not null generated always as (
  case when sample_supplier_id is not null then 'supplier' when sample_provider_id = 2 then 'customer' else 'simulated' end
) stored;
