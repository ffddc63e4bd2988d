-- 0023: files the export jobs make (PowerPointExport, RenewalPowerPointExport), kept for a week and
-- downloaded through the same calls that started them. Tenant rows like every other (RLS below).
create table export_files (
  id uuid primary key default gen_random_uuid(),
  client_id integer not null references clients (id) on delete cascade,
  project_id integer,
  created_by_user_id integer references users (id) on delete set null,
  kind text not null check (kind in ('ProjectPowerPoint', 'RenewalPowerPoint')),
  job_id text,
  file_name text not null,
  content_type text not null,
  size_bytes integer not null check (size_bytes >= 0),
  body bytea not null,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null default now() + interval '7 days',
  foreign key (project_id, client_id) references projects (id, client_id) on delete cascade
);
create index export_files_client_created on export_files (client_id, created_at);
create unique index export_files_job on export_files (job_id) where job_id is not null;

alter table export_files enable row level security;
alter table export_files force row level security;
create policy tenant_isolation on export_files
  using ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))
  with check ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]));

select ensure_foreign_key_indexes();
