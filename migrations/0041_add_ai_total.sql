-- 0041: which total an AI text's figures are (issue 23): 'markets', the all-markets total (markets
-- weighted by population, QualResults total=markets, the web app's All markets), or 'sample' (every
-- respondent at their own weight); null reads as 'sample'. On a summary it is the total it was
-- written for; on a chat thread, the total its answers compute (the view it was opened under).
alter table ai_project_summaries add column total text check (total in ('sample', 'markets'));
alter table results_ai_threads add column total text check (total in ('sample', 'markets'));
