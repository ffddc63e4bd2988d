-- 0001: the schema's small helpers and the global reference tables.
--
-- Reference tables hold data every tenant reads (regions, frameworks, standard questions, status
-- and type enumerations). They carry no client_id. Their rows are seeded by the idempotent
-- api/src/db/reference-data.sql that runs after every migrate, not by migrations, so reference data
-- can be corrected in place. Ids the spec fixes are plain integer keys; tables whose ids are ours
-- to choose and that staff may extend (categories, feature flags) use identity columns, and the
-- seed bumps their sequences past the fixed ids (sync_identity_sequences below).

-- ---- helpers ---------------------------------------------------------------------------------

-- Keeps updated_at current on every UPDATE, so no writer can forget it.
create function set_updated_at() returns trigger
language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end $$;

-- Attaches set_updated_at to every public table with an updated_at column that lacks it.
-- Each migration calls it once at its end, so tables need no per-table trigger statement.
create function ensure_updated_at_triggers() returns void
language plpgsql as $$
declare
  r record;
begin
  for r in
    select c.relname
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attname = 'updated_at' and not a.attisdropped
    where n.nspname = 'public' and c.relkind = 'r'
      and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'set_updated_at')
  loop
    execute format('create trigger set_updated_at before update on public.%I
                    for each row execute function set_updated_at()', r.relname);
  end loop;
end $$;

-- Indexes foreign keys into tenant data (tables with client_id, and clients and users): deleting
-- a parent (cascade, set null, restrict check) and joining parent to children need them. A key is
-- covered when an index starts with its first column (for (x_id, client_id) keys x_id alone is as
-- selective). Keys into reference tables are skipped: those rows are never deleted, and indexes
-- on the large results tables cost every insert. Results-query indexes are declared by the tables.
create function ensure_foreign_key_indexes() returns void
language plpgsql as $$
declare
  r record;
begin
  for r in
    select con.conrelid::regclass as tbl,
           (select string_agg(format('%I', a.attname), ', ' order by k.ord)
              from unnest(con.conkey) with ordinality k(attnum, ord)
              join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum) as cols
    from pg_constraint con
    join pg_class cl on cl.oid = con.conrelid
    join pg_namespace n on n.oid = cl.relnamespace
    join pg_class target on target.oid = con.confrelid
    where con.contype = 'f' and n.nspname = 'public'
      and (target.relname in ('clients', 'users')
           or exists (select 1 from pg_attribute ta
                      where ta.attrelid = con.confrelid and ta.attname = 'client_id' and not ta.attisdropped))
      and not exists (
        select 1 from pg_index i
        where i.indrelid = con.conrelid and i.indpred is null and i.indkey[0] = con.conkey[1])
  loop
    -- PostgreSQL picks a unique name (table_col_idx, numbered on a clash).
    execute format('create index on %s (%s)', r.tbl, r.cols);
  end loop;
end $$;

-- Moves every identity sequence past the largest id in its table (never backwards), so ids
-- inserted explicitly (reference data, the services user, fixtures) never collide with generated
-- ones. Safe to run any number of times.
create function sync_identity_sequences() returns void
language plpgsql as $$
declare
  r record;
  top bigint;
  last bigint;
  called boolean;
begin
  for r in
    select c.relname as tbl, a.attname as col, pg_get_serial_sequence(format('public.%I', c.relname), a.attname) as seq
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attidentity <> '' and not a.attisdropped
    where n.nspname = 'public' and c.relkind = 'r'
  loop
    execute format('select max(%I) from public.%I', r.col, r.tbl) into top;
    execute format('select last_value, is_called from %s', r.seq) into last, called;
    if top is not null and (not called or last < top) then
      perform setval(r.seq, top, true);
    end if;
  end loop;
end $$;

-- ---- geography and classification -------------------------------------------------------------

-- Panels are regional. Ids are fixed by the spec (1 NZ, 2 AU, 15 USA, 17 SG, 999999 Other
-- markets; US states 56..104 behind the CanChooseUsStateMarkets flag).
create table regions (
  id integer primary key,
  region_name text not null,
  region_code text not null unique,           -- e.g. NZ, AU, US, SG, OTHER, US-CA
  country_code text,                          -- ISO 3166-1 alpha-2; null for Other markets
  currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
  currency_symbol text not null,
  parent_region_id integer references regions (id),
  is_us_state boolean not null default false,
  is_default boolean not null default false,
  sort_order integer not null default 0,
  -- Completes the panel delivers per fielding day at 100% incidence: the duration estimate's input.
  daily_completes integer not null default 100 check (daily_completes > 0),
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);
create unique index regions_one_default on regions (is_default) where is_default;

-- The client industries of SPEC section 1; a project's productType and a client's industry refer
-- to them by code, the value the wire carries.
create table industries (
  id integer primary key,
  code text not null unique,
  name text not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Product categories, two levels (benchmark 8 compares within a category, 10 within its parent).
create table categories (
  id integer generated by default as identity primary key,
  name text not null,
  parent_id integer references categories (id),
  industry text references industries (code),
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3),
  check (parent_id is null or parent_id <> id)
);
create unique index categories_name_per_parent on categories (coalesce(parent_id, 0), name);

-- ---- enumerations the spec fixes --------------------------------------------------------------

create table project_types (
  id integer primary key,
  name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

create table question_types (
  id integer primary key,
  name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

create table question_positions (
  id integer primary key,
  name text not null unique,
  display_group text not null check (display_group in (
    'Audience', 'Test', 'Follow-up', 'Framework', 'Custom', 'Segmentation', 'Occasions', 'Needs', 'Usage & attitude')),
  -- Question list sort key = sort_position * 1,000,000 + sortOrder (SPEC 9: position 7 counts as 1).
  sort_position integer not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Project status codes (SPEC 4). code_name is the identifier the code base uses.
create table project_statuses (
  id integer primary key,
  name text not null,
  code_name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

create table survey_statuses (
  id integer primary key,
  name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

create table schedule_types (
  id integer primary key,
  name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Sample providers (SPEC 9): 1 Ideally (the provider's panel), 2 Customer (the client's own).
create table sample_providers (
  id integer primary key,
  name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

create table credit_log_types (
  id integer primary key,
  name text not null unique,
  -- 80..85 and 90: adjustments that belong to a project (SPEC 3).
  is_project_adjustment boolean not null default false,
  -- 30 and 130: reservations settled later by 40 / 140.
  is_pending boolean not null default false,
  description text,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- The user notifications of SPEC 4 (real-time events).
create table notification_types (
  id integer primary key,
  name text not null unique,
  description text,
  default_title text not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Benchmark (norm) types, SPEC 3 and 9. min_week/max_week bound the NPD launch-week bands.
create table benchmark_types (
  id integer primary key,
  name text not null unique,
  description text not null,
  min_week integer,
  max_week integer,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3),
  check (min_week is null or max_week is null or min_week <= max_week)
);

create table user_roles (
  id integer primary key,
  role_name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Client roles (SPEC 1): 1 Admin, 2 User, 3 Viewer.
create table user_client_roles (
  id integer primary key,
  role_name text not null unique,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Feature flags: global switch (is_enabled), a switch for the provider's own staff only
-- (EnableIdeally / DisableIdeally), and per-client overrides in client_features.
create table feature_flags (
  id integer generated by default as identity primary key,
  ff text not null unique,
  description text,
  is_enabled boolean not null default false,
  is_enabled_for_staff boolean not null default false,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- ---- frameworks and standard questions --------------------------------------------------------

create table frameworks (
  id integer primary key,
  title text not null,
  project_type_id integer not null references project_types (id),
  description text,
  -- Suggested objectives offered when a project of this framework is created.
  objective_summaries jsonb not null default '[]' check (jsonb_typeof(objective_summaries) = 'array'),
  -- The empty results path redirects to these pages (SPEC 2).
  is_price_sensitivity boolean not null default false,
  is_market_reach boolean not null default false,
  is_ab_test boolean not null default false,
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

create table standard_questions (
  id integer primary key,
  title text not null,
  question_text text not null,
  question_type_id integer not null references question_types (id),
  description text,
  -- SPEC 9: 5 first, 1 second, 4 third, 3 fourth, 2 fifth, 6 sixth, others 6.
  display_order integer not null default 6,
  is_price_sensitivity boolean not null default false,   -- 19..22
  is_add_on boolean not null default false,              -- 25 Market reach
  -- Measured on the 4-point scale, so top-2-box and benchmarks apply.
  is_scaled boolean not null default false,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- The 4-point answer scale: 1 Top, 2 SecondTop, 3 SecondBottom, 4 Bottom; labels High..Low.
create table standard_answer_values (
  id integer primary key check (id between 1 and 4),
  name text not null unique,
  value_label text not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Answer options of the standard questions; a project copies them into its own question_options.
-- 'Not sure' options have no scale value and are hidden from filters (SPEC 5).
create table standard_question_options (
  id integer primary key,
  standard_question_id integer not null references standard_questions (id),
  option_text text not null,
  standard_answer_value integer references standard_answer_values (id),
  is_not_sure boolean not null default false,
  exclusive boolean not null default false,
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3),
  check (not (is_not_sure and standard_answer_value is not null))
);

-- Which standard questions a framework asks, in order. Not an entity set: the many-to-many has no
-- key of its own (see docs/reference-data.md).
create table framework_standard_questions (
  framework_id integer not null references frameworks (id),
  standard_question_id integer not null references standard_questions (id),
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3),
  primary key (framework_id, standard_question_id)
);

-- ---- system (demographic) questions -----------------------------------------------------------

create table system_question (
  id integer primary key,
  question_label text not null,
  question_code text not null unique,         -- keys selectedFilterIds on the results page
  question_text text not null,
  is_filterable boolean not null default true,
  -- Always-shown demographic filters (SPEC 3): drink alcohol, age group, gender, household, region.
  is_always_shown boolean not null default false,
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);

-- Options of a system question; region_id null means every region. Ids are chosen in
-- reference-data.sql: question id * 100000 + region key * 100 + n.
create table system_question_option (
  id integer primary key,
  system_question_id integer not null references system_question (id),
  region_id integer references regions (id),
  answer_label text not null,
  filter_subtext text,
  is_visible boolean not null default true,
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3)
);
create index system_question_option_question_region on system_question_option (system_question_id, region_id);

-- Census margins for rim weighting: the population share of an option within a region (shares of
-- one question in one region sum to 1). Not an entity set; the results domain reads it.
create table census_margins (
  region_id integer not null references regions (id),
  system_question_option_id integer not null references system_question_option (id),
  share numeric(6, 4) not null check (share > 0 and share <= 1),
  source text not null,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3),
  primary key (region_id, system_question_option_id)
);

select ensure_updated_at_triggers();
select ensure_foreign_key_indexes();
