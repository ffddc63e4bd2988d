-- 0046: the simulated panel's plan for a run (issue 36; docs/fielding.md "The simulated panel").
--
-- The simulated Ideally panel draws each person from the market's census shares at the rates the
-- incidence estimate (api/src/domains/lifecycle/estimate.ts) gives for each target group, and
-- invites at most the panel's reach in the market over the run's field period, a field day's worth
-- of people per fielding tick. The plan is the estimate as the panel first answered the run, kept:
-- a screener's share read from past responses would otherwise move with the run's own completes
-- (only qualified people complete). Null: the panel has not answered the run yet.
alter table survey_runs add column panel_plan jsonb check (panel_plan is null or jsonb_typeof(panel_plan) = 'object');
