-- 0015: the project lifecycle and the credit ledger (api/src/domains/lifecycle and credits,
-- docs/project-lifecycle.md, docs/credits.md).
--
-- The lifecycle runs in the request's tenant transaction (row-level security applies). A few
-- answers need rows above the request's client, which row-level security hides: whether a client
-- above requires approval, who administers a team through an org or enterprise membership, which
-- enterprise a client belongs to. These SECURITY DEFINER functions read those rows after checking
-- that the request may touch the client it asks about, and return only what their caller needs.

-- A client (or any client above it) may require an Admin's approval of every submission: Submit
-- then always goes to 50 Awaiting Approval, even for an Admin. Staff set it.
alter table clients add column requires_project_approval boolean not null default false;

-- The request may touch client p: it is in the request's scope, or staff work across all clients.
create or replace function app_may_touch_client(p int) returns boolean
language sql stable as $$
  select p is not null and ((select app_all_clients()) or p = any((select app_client_ids())::int[]))
$$;

create or replace function app_require_client(p int) returns void
language plpgsql stable as $$
begin
  if not app_may_touch_client(p) then
    raise exception 'no access to client %', p using errcode = '42501';
  end if;
end $$;

-- The enterprise a client belongs to (itself when it is one); null for a client outside any
-- enterprise (a stand-alone team or org). Credit transfers and Move stay inside one enterprise.
create or replace function app_client_enterprise(p_client int) returns int
language plpgsql stable security definer set search_path = public as $$
declare
  v_root int;
begin
  perform app_require_client(p_client);
  select a.id into v_root
  from unnest(client_ancestors(p_client)) a(id)
  join clients c on c.id = a.id
  where c.tier = 'Enterprise';
  return v_root;
end $$;

-- Whether the client or a client above it requires approval of submissions.
create or replace function app_client_requires_approval(p_client int) returns boolean
language plpgsql stable security definer set search_path = public as $$
begin
  perform app_require_client(p_client);
  return exists (select 1 from clients c where c.id = any(client_ancestors(p_client)) and c.requires_project_approval);
end $$;

-- The users who administer a client: an Admin membership of the client or of a client above it
-- (roles inherit downwards), accounts not disabled. The recipients of SurveySubmittedForApproval.
create or replace function app_client_admin_ids(p_client int) returns int[]
language plpgsql stable security definer set search_path = public as $$
declare
  v int[];
begin
  perform app_require_client(p_client);
  select coalesce(array_agg(distinct uc.user_id order by uc.user_id), '{}') into v
  from user_and_clients uc
  join users u on u.id = uc.user_id and u.disabled_at is null
  where uc.role_id = 1 and uc.client_id = any(client_ancestors(p_client));
  return v;
end $$;

-- A user's role on a client (1 Admin, 2 User, 3 Viewer), inherited from a client above it, the
-- most privileged one winning; null when the user does not reach the client.
create or replace function app_user_client_role(p_user int, p_client int) returns int
language plpgsql stable security definer set search_path = public as $$
declare
  v int;
begin
  perform app_require_client(p_client);
  select min(uc.role_id) into v
  from user_and_clients uc
  join users u on u.id = uc.user_id and u.disabled_at is null
  where uc.user_id = p_user and uc.client_id = any(client_ancestors(p_client));
  return v;
end $$;

-- Move: a project and every row that belongs to it go to another client in one statement (the
-- composite (project_id, client_id) foreign keys are checked at the end of the statement, when
-- parent and children agree again). Every table with project_id and client_id moves, so tables
-- added later are covered; rows that record history stay with the client they happened to
-- (notifications, data events, AI conversations), and credit logs are never moved (the caller
-- refuses a project with ledger rows). Group tags belong to the old client's project groups, and
-- so does the project's group version: they are dropped. A row still tied to the old client (a
-- survey run, a session) makes the statement fail with a foreign key violation, and nothing moves.
-- SECURITY INVOKER: row-level security applies (staff move in the all-clients scope).
create or replace function app_move_project(p_project int, p_from int, p_to int) returns int
language plpgsql volatile as $$
declare
  r record;
  parts text[] := '{}';
  n int := 0;
  moved int;
begin
  for r in
    select c.table_name::text as table_name
    from information_schema.columns c
    join information_schema.columns cc
      on cc.table_schema = c.table_schema and cc.table_name = c.table_name and cc.column_name = 'client_id'
    join information_schema.tables t
      on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and c.column_name = 'project_id'
      and c.table_name not in ('projects', 'credit_logs', 'data_events_log', 'notifications', 'ai_conversations',
                               'project_group_tags')
    order by c.table_name
  loop
    n := n + 1;
    parts := parts || format('m%s as (update %I set client_id = $2 where project_id = $1 and client_id = $3 returning 1)',
                             n, r.table_name);
  end loop;
  parts := parts || ('mro as (update project_market_reach_options o set client_id = $2 from project_market_reach m '
                     'where m.id = o.project_market_reach_id and m.project_id = $1 and o.client_id = $3 returning 1)')::text;
  parts := parts || 'tags as (delete from project_group_tags where project_id = $1 returning 1)'::text;
  parts := parts || ('p as (update projects set client_id = $2, project_group_version_id = null, updated_at = now() '
                     'where id = $1 and client_id = $3 returning 1)')::text;
  -- Safe: the text is built from catalog table names (quoted by %I) and fixed SQL; values are $n.
  execute 'with ' || array_to_string(parts, ', ') || ' select count(*)::int from p' into moved using p_project, p_to, p_from;
  return moved;
end $$;

-- EstimatedProjectDuration, made sensible (same columns as 0007):
-- - fielding starts at the project's next unrun schedule, else at its schedule start date, and
--   never in the past;
-- - a region on a customer panel takes a fixed week (the client sends the link to their own
--   customers; the provider's daily completes do not apply);
-- - an Ideally panel region takes ceil(sample size / (daily completes x incidence)) days, with the
--   incidence floored at 5% (below it the panel cannot fill the quota at any speed: staff look at
--   the project) and at most 60 days;
-- - one day of processing follows the slowest region (results "can take up to 24 hours");
-- - a completed project (800 and above with nothing left to run) reports the day it completed.
create or replace view estimated_project_duration with (security_invoker = true) as
select
  p.id as project_id,
  p.client_id,
  s.region_count,
  s.total_sample_size,
  p.incidence_estimate::float8 as incidence_estimate,
  s.days + 1 as estimated_days,
  case
    when p.status_code >= 800 and nxt.next_date is null and p.completed_at is not null then p.completed_at::date
    else greatest(coalesce(nxt.next_date, p.schedule_start_date, current_date), current_date) + (s.days + 1)
  end as estimated_completion_date
from projects p
cross join lateral (
  select
    count(*)::int as region_count,
    coalesce(sum(pr.sample_size), 0)::int as total_sample_size,
    max(case
          when pr.is_customer_panel then 7
          else least(60, greatest(1, ceil(pr.sample_size / (r.daily_completes * greatest(coalesce(p.incidence_estimate, 1), 0.05)))))
        end)::int as days
  from projects_regions pr
  join regions r on r.id = pr.region_id
  where pr.project_id = p.id
) s
left join lateral (
  select min(ps.schedule_date) as next_date
  from project_schedules ps
  where ps.project_id = p.id and ps.survey_run_id is null
) nxt on true
where p.deleted_at is null;

-- The ledger is read per client (balance, spend per period, the CSV export in date order).
create index if not exists credit_logs_client_type_created on credit_logs (client_id, type, created_at);
-- Unsubmit, Decline, Resync and Stop look up a project's unrun schedules.
create index if not exists project_schedules_project_unrun on project_schedules (project_id) where survey_run_id is null;
