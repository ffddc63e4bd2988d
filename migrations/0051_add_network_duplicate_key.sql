-- 0051: duplicates judged on the server (issue 36, docs/decisions/0129). Each run has a random key
-- of its own (respondent_key); a respondent's entry keeps HMAC-SHA256(run's key, address + "\n" +
-- user agent) in network_key, never the address or the user agent. A complete whose network_key
-- equals a complete's of the same run is flagged a duplicate. The keys are cleared when the run
-- closes (nothing is judged after it); the quality flags stay.
alter table survey_runs
  add column respondent_key uuid not null default gen_random_uuid();
alter table survey_sessions
  add column network_key text;
