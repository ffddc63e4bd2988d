-- 0052: export_files also keeps the data exports queued beyond the bound on synchronous exports
-- (docs/decisions/0134): ProjectCsv and ProjectExcel files made by the exports.data job, kept for
-- a week like the decks and downloaded through the calls that started them.
alter table export_files drop constraint export_files_kind_check;
alter table export_files add constraint export_files_kind_check
  check (kind in ('ProjectPowerPoint', 'RenewalPowerPoint', 'ProjectCsv', 'ProjectExcel'));
