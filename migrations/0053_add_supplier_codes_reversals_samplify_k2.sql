-- 0053: supplier callbacks in the supplier's own status codes, reversals, and Samplify's k2 (issue
-- 36; docs/suppliers.md, decision record 0136).
-- - callback_codes: the code each outcome is sent as in a callback's {outcome} (PureSpectrum-style
--   21, 18, 17, 20; Cint-style names), keyed by our outcome names; an outcome not named is sent as
--   its own name. reversal_url: where reversals go (a template with {rid}; null: the callback URL).
-- - supplier_outcomes.kind: 'outcome' is what the rid was sent back with (one per rid, as before);
--   'reversal' is a later change of a reported complete (staff removing it in reconciliation),
--   carrying the final outcome and why, with its own callback state and attempts. The reconciliation
--   lists the final outcome per rid.
-- - survey_runs.samplify_entry_key: Dynata's securityKey2 when the run's Samplify survey URLs carry
--   `k2=<#Project[Secure Key 2]>`: an entry of the run must then carry k2 equal to it.
alter table sample_suppliers
  add column callback_codes jsonb not null default '{}' check (jsonb_typeof(callback_codes) = 'object'),
  add column reversal_url text check (reversal_url is null or position('{rid}' in reversal_url) > 0);

alter table supplier_outcomes
  add column kind text not null default 'outcome' check (kind in ('outcome', 'reversal')),
  add column reason text;
alter table supplier_outcomes drop constraint supplier_outcomes_survey_run_id_sample_supplier_id_rid_key;
alter table supplier_outcomes add constraint supplier_outcomes_rid_kind unique (survey_run_id, sample_supplier_id, rid, kind);
drop index supplier_outcomes_session;
create unique index supplier_outcomes_session on supplier_outcomes (survey_session_id, kind) where survey_session_id is not null;

alter table survey_runs add column samplify_entry_key text;
