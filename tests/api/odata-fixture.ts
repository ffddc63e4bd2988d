// A small registry and scratch database for the OData engine's tests. The sets follow the shapes
// SPEC.md implies for the results page; two tenants (clients 1 and 2) share every table, and the
// rows of client 2 are placed so that a scope leak in an expand, lambda or navigation path shows
// up as a wrong answer.
import postgres from "postgres";
import { testServerAdminUrl } from "../helpers/server.ts";
import { Registry } from "../../api/src/entities/registry.ts";
import { entity, f, nav, type FieldDef } from "../../api/src/entities/types.ts";
import { col, param, q } from "../../api/src/db/sqltext.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection, compileCount, compileEntity, type ScopeFn } from "../../api/src/odata/compile.ts";

const wide: Record<string, FieldDef> = { id: f.fixedKey() };
for (let i = 1; i <= 60; i++) wide[`c${i}`] = f.int();

export const reg = new Registry([
  entity({
    name: "Projects",
    table: "projects",
    scope: "client",
    softDelete: true,
    defaultOrder: "projectName",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectName: f.string(),
      statusCode: f.int(),
      projectTypeId: f.int(),
      launchDate: f.date({ nullable: true }),
      createdAt: f.createdAt(),
      isBranded: f.boolean(),
      researchNote: f.string({ nullable: true }),
      budget: f.number({ nullable: true }),
      settings: f.json({ nullable: true }),
      publicId: f.uuid(),
      secretNote: f.string({ nullable: true, filterable: false }),
      deletedAt: f.deletedAt(),
    },
    nav: {
      projectsRegions: nav.many("ProjectsRegions", "projectId"),
      segments: nav.many("Segments", "projectId"),
      aiProjectSummaries: nav.many("AiProjectSummaries", "projectId"),
      creditLogs: nav.many("CreditLogs", "projectId"),
      responses: nav.many("Responses", "projectId"),
    },
    description: "Projects",
  }),
  entity({
    name: "ProjectsRegions",
    table: "projects_regions",
    scope: "client",
    fields: { id: f.key(), clientId: f.clientId(), projectId: f.int(), regionId: f.int() },
    nav: { project: nav.one("Projects", "projectId"), region: nav.one("Regions", "regionId") },
    description: "Regions of a project",
  }),
  entity({
    name: "Regions",
    table: "regions",
    scope: "global",
    fields: { id: f.fixedKey(), regionName: f.string(), currencyCode: f.string(), currencySymbol: f.string() },
    nav: { systemQuestionOptions: nav.many("SystemQuestionOption", "regionId") },
    description: "Regions",
  }),
  entity({
    name: "Segments",
    table: "segments",
    scope: "client",
    softDelete: true,
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int(),
      name: f.string(),
      responsesFilters: f.json({ nullable: true }),
      createdAt: f.createdAt(),
      deletedAt: f.deletedAt(),
    },
    nav: { project: nav.one("Projects", "projectId"), aiProjectSummaries: nav.many("AiProjectSummaries", "segmentId") },
    description: "Saved filter sets",
  }),
  entity({
    name: "AiProjectSummaries",
    table: "ai_project_summaries",
    scope: "client",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int(),
      segmentId: f.int({ nullable: true }),
      summary: f.string(),
      createdAt: f.createdAt(),
    },
    nav: { project: nav.one("Projects", "projectId"), segment: nav.one("Segments", "segmentId") },
    description: "AI summaries",
  }),
  entity({
    name: "SystemQuestion",
    table: "system_question",
    scope: "global",
    fields: { id: f.fixedKey(), questionLabel: f.string(), questionCode: f.string(), isFilterable: f.boolean() },
    nav: { options: nav.many("SystemQuestionOption", "systemQuestionId") },
    description: "System questions",
  }),
  entity({
    name: "SystemQuestionOption",
    table: "system_question_option",
    scope: "global",
    fields: {
      id: f.fixedKey(),
      systemQuestionId: f.int(),
      answerLabel: f.string(),
      filterSubtext: f.string({ nullable: true }),
      regionId: f.int({ nullable: true }),
      isVisible: f.boolean(),
    },
    nav: { systemQuestion: nav.one("SystemQuestion", "systemQuestionId"), region: nav.one("Regions", "regionId") },
    description: "System question options",
  }),
  entity({
    name: "CreditLogs",
    table: "credit_logs",
    scope: "client",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ nullable: true }),
      creditAmount: f.number(),
      type: f.int(),
      createdAt: f.createdAt(),
    },
    nav: { project: nav.one("Projects", "projectId") },
    description: "Credit ledger",
  }),
  entity({
    name: "Responses",
    table: "responses",
    scope: "client",
    fields: {
      id: f.bigint({ readOnly: true }),
      clientId: f.clientId(),
      projectId: f.int(),
      surveySessionId: f.int(),
      questionId: f.int(),
      value: f.int({ nullable: true }),
      weight: f.number(),
    },
    nav: { project: nav.one("Projects", "projectId") },
    description: "Long-format responses",
  }),
  entity({ name: "WideThings", table: "wide_things", scope: "global", fields: wide, description: "60 columns" }),
]);

const SCHEMA = `
create table regions (id int primary key, region_name text not null, currency_code text not null, currency_symbol text not null);
create table projects (
  id serial primary key, client_id int not null, project_name text not null, status_code int not null,
  project_type_id int not null, launch_date date, created_at timestamptz not null, is_branded bool not null,
  research_note text, budget numeric, settings jsonb, public_id uuid not null, secret_note text, deleted_at timestamptz);
create table projects_regions (id serial primary key, client_id int not null, project_id int not null, region_id int not null);
create table segments (id serial primary key, client_id int not null, project_id int not null, name text not null,
  responses_filters jsonb, created_at timestamptz not null default now(), deleted_at timestamptz);
create table ai_project_summaries (id serial primary key, client_id int not null, project_id int not null, segment_id int,
  summary text not null, created_at timestamptz not null default now());
create table system_question (id int primary key, question_label text not null, question_code text not null, is_filterable bool not null);
create table system_question_option (id int primary key, system_question_id int not null, answer_label text not null,
  filter_subtext text, region_id int, is_visible bool not null);
create table credit_logs (id serial primary key, client_id int not null, project_id int, credit_amount numeric not null,
  type int not null, created_at timestamptz not null default now());
create table responses (id bigserial primary key, client_id int not null, project_id int not null, survey_session_id int not null,
  question_id int not null, value int, weight float8 not null);
create table wide_things (id int primary key, ${Array.from({ length: 60 }, (_, i) => `c${i + 1} int`).join(", ")});
`;

// Client 2's rows hang off client 1's projects (and one client-1 row points at client 2's
// project): only the scope predicate on every alias keeps them out.
const DATA = `
insert into regions values (1, 'United States', 'USD', '$'), (2, 'United Kingdom', 'GBP', '£'), (3, 'Australia', 'AUD', '$');
insert into projects (id, client_id, project_name, status_code, project_type_id, launch_date, created_at, is_branded, research_note, budget, settings, public_id, secret_note, deleted_at) values
 (1, 1, 'Alpha', 0, 1, '2026-01-02', '2026-01-01T10:00:00Z', true, 'it''s 50% done_x', 100.5, '{"a":1,"b":[true,null]}', '00000000-0000-4000-8000-000000000001', 's', null),
 (2, 1, 'Beta', 100, 2, null, '2026-02-01T00:00:00Z', false, null, null, null, '00000000-0000-4000-8000-000000000002', null, null),
 (3, 1, 'Gamma', 800, 3, '2025-12-31', '2025-06-15T23:30:00.123Z', true, 'GAMMA note', 7, '[]', '00000000-0000-4000-8000-000000000003', null, null),
 (4, 1, 'Deleted', 0, 1, null, '2026-01-05T00:00:00Z', false, null, null, null, '00000000-0000-4000-8000-000000000004', null, '2026-01-06T00:00:00Z'),
 (5, 1, 'Epsilon', 900, 4, '2026-03-01', '2026-03-01T12:00:00Z', false, 'ALPHA in caps', 0, null, '00000000-0000-4000-8000-000000000005', null, null),
 (6, 2, 'Other', 0, 1, null, '2026-01-01T00:00:00Z', true, null, null, null, '00000000-0000-4000-8000-000000000006', null, null);
select setval('projects_id_seq', 100);
insert into projects_regions (id, client_id, project_id, region_id) values
 (1, 1, 1, 1), (2, 1, 1, 2), (3, 1, 2, 1), (4, 1, 5, 3), (5, 2, 6, 1), (6, 2, 1, 3), (7, 1, 6, 2);
insert into segments (id, client_id, project_id, name, responses_filters, deleted_at) values
 (1, 1, 1, 'Young', '{"regionIds":[1]}', null), (2, 1, 1, 'Old', null, null), (3, 1, 2, 'All', null, null),
 (4, 1, 1, 'Gone', null, '2026-01-01T00:00:00Z'), (5, 2, 1, 'Hidden', null, null);
insert into ai_project_summaries (id, client_id, project_id, segment_id, summary) values
 (1, 1, 1, 1, 'one'), (2, 1, 1, 1, 'two'), (3, 1, 1, 2, 'three'), (4, 2, 1, 1, 'leak'), (5, 1, 1, null, 'five');
insert into system_question values (51, 'Age', 'AGE', true), (45, 'Gender', 'GENDER', true), (42, 'Region', 'REGION', false);
insert into system_question_option values
 (1, 51, '18-24', null, null, true), (2, 51, '25-34', 'young adults', 1, true), (3, 51, '35+', null, 2, true),
 (4, 45, 'Male', null, 1, true), (5, 45, 'Female', null, 1, false), (6, 42, 'North', null, 1, true), (7, 45, 'Other', null, null, true);
insert into credit_logs (id, client_id, project_id, credit_amount, type, created_at) values
 (1, 1, 5, 10, 40, '2026-01-01T00:00:00Z'), (2, 1, 5, 20.5, 80, '2026-01-02T00:00:00Z'), (3, 1, 5, -5, 90, '2026-01-03T00:00:00Z'),
 (4, 2, 5, 100, 40, '2026-01-04T00:00:00Z'), (5, 1, 1, 7, 40, '2026-01-05T00:00:00Z'), (6, 1, null, 50, 1, '2026-01-06T00:00:00Z');
insert into responses (client_id, project_id, survey_session_id, question_id, value, weight) values
 (1, 1, 1, 10, 1, 1.0), (1, 1, 1, 11, 2, 1.0), (1, 1, 2, 10, 1, 0.5), (1, 1, 3, 10, null, 2.0),
 (1, 2, 4, 10, 4, 1.0), (1, 2, 4, 11, 3, 1.0), (2, 6, 9, 10, 1, 1.0), (2, 1, 9, 10, 1, 1.0);
insert into wide_things select 1, ${Array.from({ length: 60 }, (_, i) => String(i + 1)).join(", ")};
`;

async function serverUrl(dbName: string): Promise<string> {
  const u = new URL(await testServerAdminUrl());
  u.pathname = `/${dbName}`;
  return u.toString();
}

export interface ScratchDb {
  sql: postgres.Sql;
  drop(): Promise<void>;
}

/** Creates a scratch database with the fixture schema and rows; `drop()` removes it. */
export async function scratchDb(): Promise<ScratchDb> {
  const name = `odata_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(await serverUrl("postgres"), { max: 1, onnotice: () => {} });
  // The name is built from digits and [a-z0-9] only: safe in the statement text.
  await admin.unsafe(`create database "${name}"`);
  const sql = postgres(await serverUrl(name), { max: 2, onnotice: () => {} });
  await sql.unsafe(SCHEMA + DATA);
  return {
    sql,
    async drop() {
      await sql.end({ timeout: 1 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 1 });
    },
  };
}

/** Client-scoped and shared sets see one client's rows; global and user sets are unscoped here. */
export function clientScope(clientId: number): ScopeFn {
  return (set, alias) => (set.scope === "client" || set.scope === "shared" ? q`${col(alias, set.clientColumn)} = ${param(clientId, "int4")}` : null);
}

export type Raw = Record<string, string | undefined>;

export interface Page<T = Record<string, unknown>> {
  value: T[];
  more: boolean;
  count: number | null;
  text: string;
}

export async function list<T = Record<string, unknown>>(sql: postgres.Sql, setName: string, raw: Raw, scope = clientScope(1)): Promise<Page<T>> {
  const set = reg.mustGet(setName);
  const stmt = compileCollection(reg, set, parseQuery(raw, set, reg), { scope });
  const { text, params } = stmt.render();
  const [row] = (await sql.unsafe(text, params as never[])) as unknown as { value: string; more: boolean; count: number | null }[];
  return { value: JSON.parse(row!.value) as T[], more: row!.more, count: row!.count, text };
}

export async function getOne(sql: postgres.Sql, setName: string, key: string | number, raw: Raw = {}, scope = clientScope(1)): Promise<unknown> {
  const set = reg.mustGet(setName);
  const { text, params } = compileEntity(reg, set, key, parseQuery(raw, set, reg), { scope }).render();
  const rows = (await sql.unsafe(text, params as never[])) as unknown as { value: string }[];
  return rows.length ? JSON.parse(rows[0]!.value) : undefined;
}

export async function count(sql: postgres.Sql, setName: string, raw: Raw, scope = clientScope(1)): Promise<number> {
  const set = reg.mustGet(setName);
  const { text, params } = compileCount(reg, set, parseQuery(raw, set, reg), { scope }).render();
  const [row] = (await sql.unsafe(text, params as never[])) as unknown as { count: number }[];
  return row!.count;
}
