-- 0039: a project's action standard (issue 23, api/src/domains/results/verdict.ts): the measure its
-- concepts must pass and whether against the benchmark on screen or against each other,
-- {"standardQuestionId": 5, "against": "benchmark" | "others"}; null: the default (the headline
-- measure against the benchmark). Written by Projects({key})/ActionStandard (PUT), which checks it.
alter table projects add column action_standard jsonb;

-- The benchmark an AI summary was written against (0 'None'; null: the default, all customers), so
-- the Summary page can show the summary written for the view on screen, or say whose it is.
alter table ai_project_summaries add column benchmark_type_id integer;
