-- 0032: the quality check of each open answer (CommandRunner ReGenerateTextResponsesQa,
-- api/src/analytics/text-qa.ts): its status, why, and when it was checked.
alter table text_responses
  add column qa_status text check (qa_status in ('Ok', 'NonAnswer', 'TooShort', 'Gibberish', 'Duplicate')),
  add column qa_reason text,
  add column qa_checked_at timestamptz(3);
