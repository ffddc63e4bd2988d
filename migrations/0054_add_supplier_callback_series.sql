-- 9001: staff send a supplier callback again (docs/suppliers.md "Outcomes, end links and callbacks";
-- decision record 0141). A re-send starts a fresh series of attempts: the callback is pending
-- again and gets CALLBACK_MAX_ATTEMPTS more tries with the backoff from its start, while the
-- attempts made so far are kept and listed. Attempt numbers go on rising across series (the
-- attempts' unique key and their order stay as they were); each attempt says which series it
-- belongs to.
-- - supplier_outcomes.callback_series: the current series (1 until staff first send it again).
-- - supplier_outcomes.callback_series_from: the attempts made before the current series began; the
--   series' own count is callback_attempts - callback_series_from.
-- - supplier_callback_attempts.series: the series the attempt was made in.
alter table supplier_outcomes
  add column callback_series integer not null default 1 check (callback_series >= 1),
  add column callback_series_from integer not null default 0 check (callback_series_from >= 0);
alter table supplier_callback_attempts
  add column series integer not null default 1 check (series >= 1);
