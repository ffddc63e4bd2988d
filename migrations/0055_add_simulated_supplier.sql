-- 9001: the simulated panel is a sample supplier like any other (issue 36, docs/decisions/9001). Its
-- row (is_simulated) is made the first time the panel answers a run, with a secret of its own; its
-- people enter the runs whose sample source is simulated through the signed entry link and are sent
-- back to its end links. One such supplier at a time.
alter table sample_suppliers
  add column is_simulated boolean not null default false;
create unique index sample_suppliers_one_simulated on sample_suppliers (is_simulated) where is_simulated and deleted_at is null;
