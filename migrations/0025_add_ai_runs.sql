-- 0030: what the AI layer records about each text it writes (the AI issue, docs/decisions.md "AI"):
-- the figures it cites (references_data: [{ref, text, value, source}]), the provider and model,
-- the token usage, the job that wrote it, and for conversations the full exchange (prompts, tool
-- calls and their results) that DebugConversation shows.

alter table ai_project_summaries
  add column references_data jsonb,
  add column provider text,
  add column model text,
  add column usage jsonb,
  add column job_id text,
  -- Why it was made: ResultsReady (processing end), ObjectiveSaved, Segment (GenerateSummaries),
  -- Requested (POST, Regenerate keeps the row's own).
  add column trigger text not null default 'Requested'
    check (trigger in ('ResultsReady', 'ObjectiveSaved', 'Segment', 'Requested'));
create index ai_project_summaries_trigger on ai_project_summaries (project_id, trigger, created_at);

alter table results_ai_messages
  add column provider text,
  add column model text,
  add column usage jsonb,
  -- The exchange behind an assistant answer: the prompts, each tool call with its arguments and
  -- result, and the tokens of each round.
  add column debug jsonb;

alter table ai_conversation_messages
  add column provider text,
  add column model text,
  add column usage jsonb,
  add column references_data jsonb,
  add column debug jsonb;
