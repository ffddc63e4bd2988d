-- 0056: a wave's sample supplier, chosen before its run exists (issue 36, docs/decisions/0145).
-- The fielding tick makes and launches the runs of approved projects on its own, so a supplier set
-- on the run (SetSampleSource) raced it. Staff now set it on the project's schedules (PATCH
-- ProjectSchedules sampleSupplierId) while the project awaits approval; the run made from them
-- carries it. A wave is the team's own list or a supplier's, never both.
alter table project_schedules
  add column sample_supplier_id integer references sample_suppliers (id),
  add constraint project_schedules_one_source check (not (is_customer_panel and sample_supplier_id is not null));
