-- 0014: project authoring (api/src/domains/projects): the submitted-project lock, what the price
-- sensitivity and market reach set-ups need beyond 0003, and two SECURITY DEFINER reads a team
-- request cannot make under row-level security alone (its org's template questions, and panel
-- counts for targeting).

-- ---- the submitted-project lock ---------------------------------------------------------------
-- Once a project is submitted (status 100 or more) its questionnaire is fixed: test options,
-- questions and their options, project questions, targets, regions and the price sensitivity and
-- market reach set-ups. The domain checks this first (a clear 409); this trigger is the backstop
-- for every other writer, the generic PATCH/POST/DELETE routes included. It binds API requests
-- only (the app role): migrations, fixtures and jobs run as the owner. A request that may edit a
-- submitted project (Questions and TestOptions SuperAdminUpdate) says so for its own transaction
-- with set_config('app.allow_submitted_edit', 'on', true). SQLSTATE 55000 (object not in
-- prerequisite state) is answered 409 by the API.
create or replace function guard_submitted_project() returns trigger
language plpgsql as $$
declare
  v_project int;
  v_status int;
begin
  if current_user <> 'ideally_app' or coalesce(current_setting('app.allow_submitted_edit', true), '') = 'on' then
    return coalesce(new, old);
  end if;
  if tg_op = 'DELETE' then v_project := old.project_id; else v_project := new.project_id; end if;
  if v_project is null then
    return coalesce(new, old);               -- template questions and their options
  end if;
  select status_code into v_status from projects where id = v_project;
  if v_status >= 100 then
    raise exception 'Project % is submitted (status %): its questionnaire, targets and regions can no longer be changed', v_project, v_status
      using errcode = '55000', hint = 'Only a super admin can edit a submitted project (SuperAdminUpdate).';
  end if;
  return coalesce(new, old);
end $$;

do $$
declare t text;
begin
  foreach t in array array['test_options', 'questions', 'question_options', 'project_questions', 'targets',
                           'projects_regions', 'project_price_sensitivities', 'project_market_reach']
  loop
    execute format('drop trigger if exists guard_submitted_project on %I', t);
    execute format('create trigger guard_submitted_project before insert or update or delete on %I
                    for each row execute function guard_submitted_project()', t);
  end loop;
end $$;

-- ---- price sensitivity (Create/Update/DeletePriceSensitivities) -------------------------------
-- One row per test option. purchase_intent turns on the Newton-Miller-Smith extension: the survey
-- asks purchase likelihood (5-point) at the respondent's own bargain and expensive prices, and the
-- calibration maps answers 5..1 to purchase probabilities (Newton, Miller and Smith 1993).
alter table project_price_sensitivities
  add column purchase_intent boolean not null default false,
  add column purchase_intent_calibration numeric(4, 3)[] not null default '{0.7,0.5,0.3,0.1,0}'
    check (cardinality(purchase_intent_calibration) = 5),
  add constraint project_price_sensitivities_one_per_option unique nulls not distinct (project_id, test_option_id);

-- ---- market reach (Create/Update/DeleteMarketReach) -------------------------------------------
-- The TURF items are either the project's test options, asked through a copy of standard question
-- 25 (project_question_id; answer_option_id is the option standing for each test option), or the
-- options of one of the project's multiple-choice questions (question_id; the item is
-- question_option_id).
alter table project_market_reach
  add column question_id integer,
  add column project_question_id integer,
  add foreign key (question_id, client_id) references questions (id, client_id) on delete cascade,
  add foreign key (project_question_id, client_id) references project_questions (id, client_id)
    on delete set null (project_question_id);

alter table project_market_reach_options
  alter column test_option_id drop not null,
  add column question_option_id integer,
  add column answer_option_id integer,
  add column sort_order integer not null default 0,
  add foreign key (question_option_id, client_id) references question_options (id, client_id) on delete cascade,
  add foreign key (answer_option_id, client_id) references question_options (id, client_id)
    on delete set null (answer_option_id),
  add constraint project_market_reach_options_one_item check ((test_option_id is null) <> (question_option_id is null)),
  add constraint project_market_reach_options_unique_question_option unique (project_market_reach_id, question_option_id);

-- ---- the org's template questions (Questions OrgTemplatesQuestions / OrgTemplatesQuestion) -----
-- A team request sees its own client only; the templates of the clients above it (its org and
-- enterprise) are read here, after checking the request may touch p_client. Returns the templates
-- with their question and options as JSON (camelCase, as the API sends them).
create or replace function app_org_template_questions(p_client int, p_question int default null)
returns jsonb
language plpgsql stable security definer set search_path = public as $$
declare
  v jsonb;
begin
  if p_client is null or not (p_client = any(app_client_ids())) then
    raise exception 'no access to client %', p_client using errcode = '42501';
  end if;
  select coalesce(jsonb_agg(x.obj order by x.client_depth, x.name, x.id), '[]'::jsonb) into v
  from (
    select qt.id, qt.name, a.n as client_depth,
      jsonb_build_object(
        'id', qt.id, 'clientId', qt.client_id, 'clientName', c.name, 'clientTier', c.tier,
        'name', qt.name, 'description', qt.description, 'questionPositionId', qt.question_position_id,
        'questionId', q.id,
        'question', jsonb_build_object(
          'id', q.id, 'questionText', q.question_text, 'questionTitle', q.question_title,
          'questionTypeId', q.question_type_id, 'randomizeOptions', q.randomize_options,
          'minChoices', q.min_choices, 'maxChoices', q.max_choices, 's3File', q.s3_file,
          'questionOptions', coalesce((
            select jsonb_agg(jsonb_build_object('id', o.id, 'optionText', o.option_text, 'sortOrder', o.sort_order,
                                                'exclusive', o.exclusive, 'isOther', o.is_other, 'isNotSure', o.is_not_sure)
                             order by o.sort_order, o.id)
            from question_options o where o.question_id = q.id), '[]'::jsonb))) as obj
    from unnest(client_ancestors(p_client)) with ordinality as a(client_id, n)
    join question_templates qt on qt.client_id = a.client_id and qt.deleted_at is null
    join questions q on q.id = qt.question_id and q.deleted_at is null
    join clients c on c.id = qt.client_id
    where a.n > 1                              -- above the client, not the client itself
      and (p_question is null or q.id = p_question)
  ) x;
  return v;
end $$;

-- ---- panel counts for targeting (Questions TargetQuestionsWithCounts) --------------------------
-- How many past respondents (survey sessions) in the given regions gave each demographic answer,
-- optionally among those who also match filter options (OR within a system question, AND across
-- them). The Ideally panel is the provider's, so its sessions count across clients; a customer
-- panel belongs to its client, so only p_client's own customer-panel sessions count. Only counts
-- leave the function, never rows.
create or replace function app_panel_option_counts(
  p_client int, p_regions int[], p_filter_options int[], p_from timestamptz, p_to timestamptz, p_customer boolean)
returns table (system_question_option_id int, respondents int)
language plpgsql stable security definer set search_path = public as $$
#variable_conflict use_column
begin
  if p_client is null or not (app_all_clients() or p_client = any(app_client_ids())) then
    raise exception 'no access to client %', p_client using errcode = '42501';
  end if;
  return query
  with base as (
    select r.survey_session_id as s, r.system_question_id as q, r.system_question_option_id as o
    from responses r
    where r.system_question_option_id is not null
      and r.region_id = any(p_regions)
      and (not r.is_customer_panel or r.client_id = p_client)
      and (p_customer is null or r.is_customer_panel = p_customer)
      and (p_from is null or r.created_at >= p_from)
      and (p_to is null or r.created_at <= p_to)
  ), wanted as (
    select o.system_question_id as q, array_agg(o.id) as ids
    from system_question_option o
    where o.id = any(coalesce(p_filter_options, '{}'))
    group by o.system_question_id
  ), matching as (
    select b.s
    from base b join wanted w on w.q = b.q and b.o = any(w.ids)
    group by b.s
    having count(distinct b.q) = (select count(*) from wanted)
  )
  select b.o, count(distinct b.s)::int
  from base b
  where not exists (select 1 from wanted) or b.s in (select m.s from matching m)
  group by b.o;
end $$;

select ensure_updated_at_triggers();
select ensure_foreign_key_indexes();
