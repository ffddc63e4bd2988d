-- 0007: the computed entity sets, as views. Read-only in the registry.
--
-- security_invoker: a view normally reads its tables with its owner's rights, which would step
-- around row-level security on those tables. With security_invoker (PostgreSQL 15) the caller's
-- rights and RLS policies apply, so a view shows exactly the rows its tables would.

-- ExtendedTeams: each team with its org and enterprise (SPEC 3: teamId, orgId, enterpriseId and
-- their names). A team may sit directly under an enterprise (no org) or under nothing.
create view extended_teams with (security_invoker = true) as
select
  t.id as team_id,
  t.client_id,
  tc.name as team_name,
  o.id as org_id,
  o.name as org_name,
  e.id as enterprise_id,
  e.name as enterprise_name
from teams t
join clients tc on tc.id = t.id
left join clients p on p.id = tc.parent_id
left join clients o on o.id = p.id and o.tier = 'Org'
left join clients e on e.tier = 'Enterprise'
  and e.id = case when p.tier = 'Enterprise' then p.id else p.parent_id end;

-- ExtrapolatedUserAndClients: every client each user reaches, directly or through a membership of
-- an ancestor (roles inherit downwards). Where several memberships reach one client, the most
-- privileged role wins (1 Admin < 2 User < 3 Viewer), then the nearest. The key is
-- '{userId}-{clientId}', since a row is a pair.
create view extrapolated_user_and_clients with (security_invoker = true) as
with recursive reach as (
  select uc.id as source_user_and_client_id, uc.user_id, uc.role_id, uc.client_id as source_client_id,
         uc.client_id, 0 as depth
  from user_and_clients uc
  union all
  select r.source_user_and_client_id, r.user_id, r.role_id, r.source_client_id, c.id, r.depth + 1
  from reach r
  join clients c on c.parent_id = r.client_id
)
select distinct on (user_id, client_id)
  user_id::text || '-' || client_id::text as id,
  user_id,
  client_id,
  role_id,
  source_client_id,
  source_user_and_client_id,
  depth > 0 as is_inherited,
  depth
from reach
order by user_id, client_id, role_id, depth;

-- EstimatedProjectDuration: fielding days a project needs. The slowest region decides: its
-- completes per wave over what its panel delivers a day at the project's incidence (1 while not
-- estimated). Projects without regions have no estimate (null). The completion date counts from
-- the schedule start, or from today for a project not yet scheduled.
create view estimated_project_duration with (security_invoker = true) as
select
  p.id as project_id,
  p.client_id,
  s.region_count,
  s.total_sample_size,
  p.incidence_estimate::float8 as incidence_estimate,
  s.days as estimated_days,
  coalesce(p.schedule_start_date, current_date) + s.days as estimated_completion_date
from projects p
cross join lateral (
  select
    count(*)::int as region_count,
    coalesce(sum(pr.sample_size), 0)::int as total_sample_size,
    max(greatest(1, ceil(pr.sample_size / (r.daily_completes * coalesce(p.incidence_estimate, 1)))))::int as days
  from projects_regions pr
  join regions r on r.id = pr.region_id
  where pr.project_id = p.id
) s
where p.deleted_at is null;
