// The generic entity service: reads through the OData engine, writes through the registry's
// schemas, every statement in the caller's tenant transaction with the registry scope applied.
import type { Db, SqlParams, Tx } from "../db/client.ts";
import { readAsTenant } from "../db/tx.ts";
import { enterTenant } from "../access/policy.ts";
import { col, ident, join, param, q, raw, type Sql } from "../db/sqltext.ts";
import { ApiError } from "../errors.ts";
import { isAllClients, tenantOf, type RequestCtx } from "../access/principal.ts";
import { parseQuery } from "../odata/parser.ts";
import { DEFAULT_TOP } from "../odata/limits.ts";
import { weighedCostly } from "../odata/cost.ts";
import { targetOf } from "../web/paths.ts";
import { compileCollection, compileCount, compileEntity, type ScopeFn } from "../odata/compile.ts";
import type { Registry } from "./registry.ts";
import type { EntitySetDef, FieldDef } from "./types.ts";

type Query = Record<string, string | undefined>;

/**
 * The registry scope as a SQL predicate on a table alias: the first wall; row-level security is
 * the second. The client ids come from the settings app_enter() made for this request.
 */
export function scopeFor(ctx: RequestCtx, reg: Registry, opts: { write?: boolean } = {}): ScopeFn {
  const all = isAllClients(ctx);
  return (set, alias) => {
    switch (set.scope) {
      case "global":
        return null;
      case "user":
        // Staff in the admin area (no clientId header) read every user's rows.
        if (all) return null;
        return q`${col(alias, "user_id")} = ${param(ctx.principal.userId, "int4")}`;
      case "client":
      case "shared": {
        if (all) return null;
        const ids = raw("(select app_client_ids())::int[]");
        if (set.clientVia) {
          const via = set.nav[set.clientVia]!;
          const target = reg.mustGet(via.target);
          const t = `${alias}_cv`;
          const own = set.ownRowField ? q` or ${col(alias, set.fields[set.ownRowField]!.column)} = ${param(ctx.principal.userId, "int4")}` : raw("");
          return q`(exists (select 1 from ${ident(target.table)} ${ident(t)} where ${col(t, target.fields[via.targetField]!.column)} = ${col(alias, set.fields[via.localField]!.column)} and ${col(t, target.clientColumn)} = any(${ids}))${own})`;
        }
        const own = q`${col(alias, set.clientColumn)} = any(${ids})`;
        // A project shared with the caller is readable (never writable) from another client.
        if (set.scope === "shared" && !opts.write) {
          return q`(${own} or ${col(alias, set.projectColumn)} = any((select app_shared_project_ids())::int[]))`;
        }
        return own;
      }
    }
  };
}

/** Runs a compiled statement (built only from registry names; every value a parameter). */
async function run<T>(tx: Tx, stmt: Sql): Promise<T[]> {
  const { text, params } = stmt.render();
  // Safe: `text` contains no input (sqltext.ts); values travel as bind parameters.
  return tx.unsafe<T[]>(text, params as SqlParams, { prepare: true });
}

/** A read: one round trip (see readAsTenant). */
function read<T>(db: Db, ctx: RequestCtx, stmt: Sql): Promise<T[]> {
  const { text, params } = stmt.render();
  return readAsTenant<T>(db, tenantOf(ctx), text, params);
}

function parseKey(set: EntitySetDef, key: string): string | number {
  const kf = set.fields[set.key]!;
  if (kf.type === "int" || kf.type === "bigint") {
    const n = Number(key);
    if (!Number.isSafeInteger(n)) throw new ApiError("BadRequest", `${set.name} key must be an integer, got '${key}'`);
    return n;
  }
  return key;
}

interface CompiledList {
  text: string;
  params: SqlParams;
  top: number | undefined;
  skip: number | undefined;
  /**
   * Weighed as costly (db/gate.ts's costly lane): before it ever ran, by the rows it may produce or
   * the lambdas nested in its filter (odata/cost.ts weighedCostly); then also once it answered
   * COSTLY_ANSWER_CHARS or more (set then: the one field that changes).
   */
  costly: boolean;
  /** The statement of the answer in pieces, made the first time it is read as costly. */
  pieced?: string;
}

/** A read that answered this many characters (about 4 MB of JSON) runs in the costly lane from then on, whatever its bound. */
export const COSTLY_ANSWER_CHARS = 4_000_000;

/**
 * Compiled list statements by set, query and tenant: a results page repeats the same few queries,
 * so parse + compile (tens of microseconds) is done once. The key holds everything the statement
 * depends on; entries change only by being weighed costly (below).
 */
const listCache = new Map<string, CompiledList>();
const LIST_CACHE_MAX = 2000;

function compiledList(reg: Registry, set: EntitySetDef, ctx: RequestCtx, query: Query): CompiledList {
  const key = JSON.stringify([set.name, query, ctx.principal.userId, ctx.principal.isStaff, ctx.clientId]);
  let hit = listCache.get(key);
  if (!hit) {
    const parsed = parseQuery(query, set, reg);
    const { text, params } = compileCollection(reg, set, parsed, { scope: scopeFor(ctx, reg) }).render();
    hit = { text, params, top: parsed.top, skip: parsed.skip, costly: weighedCostly(parsed) };
    if (listCache.size >= LIST_CACHE_MAX) listCache.delete(listCache.keys().next().value!);
    listCache.set(key, hit);
  }
  return hit;
}

/**
 * Characters of a costly read's answer per row it comes in: postgres.js decodes each row as it
 * arrives, so the event loop runs between them (the flood's 17 MB answer as one text held it about
 * 100 ms to decode, and as much again to join).
 */
export const PIECE_CHARS = 1 << 20;

/** A compiled statement whose one row's text comes instead in rows of PIECE_CHARS characters, in order (the row itself computed once). */
function inPieces(text: string): string {
  return `with odata_answer as materialized (${text}) select a.more, a.count, substr(a.value, 1 + k * ${PIECE_CHARS}, ${PIECE_CHARS}) as piece from odata_answer a cross join generate_series(0, greatest(0, (length(a.value) - 1) / ${PIECE_CHARS})) k order by k`;
}

/**
 * The body of GET /api/v1/{Set} in pieces (joined, the OData collection): one for a cheap read; a
 * costly one (its slot in the gate's costly lane) comes in pieces of PIECE_CHARS characters that are
 * never joined (web/compress.ts sends them a slice at a time).
 */
export async function list(db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, query: Query, url: string): Promise<readonly string[]> {
  const c = compiledList(reg, set, ctx, query);
  const t = tenantOf(ctx);
  if (!c.costly) {
    const [row] = await readAsTenant<CollectionRow>(db, t, c.text, c.params);
    if (row!.value.length >= COSTLY_ANSWER_CHARS) c.costly = true;
    return [collectionJson(row!, url, c.top, c.skip)];
  }
  c.pieced ??= inPieces(c.text);
  const rows = await readAsTenant<PieceRow>(db, t.limits ? { ...t, limits: { ...t.limits, costly: true } } : t, c.pieced, c.params);
  const [head, tail] = collectionParts(rows[0]!, url, c.top, c.skip);
  return [head, ...rows.map((r) => r.piece), tail];
}

/** The row a compiled collection statement answers (odata/compile.ts). */
export interface CollectionRow {
  value: string;
  more: boolean;
  count: number | null;
}

/** A row of a costly read's answer in pieces (inPieces). */
interface PieceRow {
  piece: string;
  more: boolean;
  count: number | null;
}

/** What comes before and after the rows' JSON array in the OData collection body: the count, and the next page's link. */
function collectionParts(row: { more: boolean; count: number | null }, url: string, top: number | undefined, skip: number | undefined): [string, string] {
  let head = "{";
  if (row.count !== null && row.count !== undefined) head += `"@odata.count":${row.count},`;
  head += `"value":`;
  const tail = row.more ? `,"@odata.nextLink":${JSON.stringify(nextLink(url, top, skip))}}` : "}";
  return [head, tail];
}

/** The OData collection body from a compiled statement's row: count, value and the next page's link. */
export function collectionJson(row: CollectionRow, url: string, top: number | undefined, skip: number | undefined): string {
  const [head, tail] = collectionParts(row, url, top, skip);
  return head + row.value + tail;
}

/** The same request with $skip moved one page on ($top pinned to the page size). */
function nextLink(url: string, top: number | undefined, skip: number | undefined): string {
  const { pathname, search } = targetOf(url);
  const page = top ?? DEFAULT_TOP;
  let link = `${pathname}?`;
  // Option names keep their '$' (readable links); values are percent-encoded.
  for (const [k, v] of new URLSearchParams(search)) if (k !== "$skip" && k !== "$top") link += `${k}=${encodeURIComponent(v)}&`;
  return `${link}$top=${page}&$skip=${(skip ?? 0) + page}`;
}

export async function getByKey(db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, key: string, query: Query): Promise<string> {
  const parsed = parseQuery(query, set, reg);
  const stmt = compileEntity(reg, set, parseKey(set, key), parsed, { scope: scopeFor(ctx, reg) });
  const [row] = await read<{ value: string }>(db, ctx, stmt);
  if (!row) throw new ApiError("NotFound", `${set.name}(${key}) not found`);
  return row.value;
}

export async function count(db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, query: Query): Promise<number> {
  const parsed = parseQuery(query, set, reg);
  const stmt = compileCount(reg, set, parsed, { scope: scopeFor(ctx, reg) });
  const [row] = await read<{ count: number }>(db, ctx, stmt);
  return row!.count;
}

// ---- writes ----

function castFor(fd: FieldDef): string {
  switch (fd.type) {
    case "int":
      return "int4";
    case "bigint":
      return "int8";
    case "number":
      return "numeric";
    case "string":
      return "text";
    case "boolean":
      return "bool";
    case "datetime":
      return "timestamptz";
    case "date":
      return "date";
    case "uuid":
      return "uuid";
    case "json":
      return "jsonb";
  }
}

function value(fd: FieldDef, v: unknown): Sql {
  if (v === null) return raw("null");
  // jsonb parameters are serialised by postgres.js from the server-described type: pass as is.
  return param(v, castFor(fd));
}

/** Maps a Postgres constraint violation to the API's error shape. */
function mapDbError(set: EntitySetDef, e: unknown): never {
  const code = (e as { code?: string }).code;
  const detail = (e as { detail?: string }).detail;
  if (code === "23503") throw new ApiError("Conflict", `${set.name}: a referenced row does not exist or other rows still refer to this one`, detail);
  if (code === "23505") throw new ApiError("Conflict", `${set.name}: a row with the same unique values exists`, detail);
  if (code === "23514" || code === "23502" || code === "22P02" || code === "22003") {
    throw new ApiError("ValidationError", `${set.name}: a value breaks a constraint`, detail);
  }
  if (code === "42501") throw new ApiError("Forbidden", `${set.name}: not allowed for this client`);
  throw e;
}

function owningColumns(set: EntitySetDef, ctx: RequestCtx): { column: string; value: number }[] {
  if (set.scope === "user") return [{ column: "user_id", value: ctx.principal.userId }];
  if ((set.scope === "client" || set.scope === "shared") && !set.clientVia && set.clientColumn === "client_id") {
    if (ctx.clientId === null) throw new ApiError("BadRequest", `A clientId header is required to create ${set.name}`);
    return [{ column: "client_id", value: ctx.clientId }];
  }
  return [];
}

/** The fields a generic create fills with the caller's user id. */
const CALLER_FIELDS = ["createdByUserId", "invitedByUserId", "sharedByUserId"] as const;

export async function create(db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, body: Record<string, unknown>): Promise<string> {
  if (set.view) throw new ApiError("MethodNotAllowed", `${set.name} is read-only`);
  const cols: Sql[] = [];
  const vals: Sql[] = [];
  for (const [name, v] of Object.entries(body)) {
    const fd = set.fields[name];
    if (!fd || fd.readOnly || v === undefined) continue;
    cols.push(ident(fd.column));
    vals.push(value(fd, v));
  }
  for (const o of owningColumns(set, ctx)) {
    cols.push(ident(o.column));
    vals.push(param(o.value, "int4"));
  }
  // Who made the row is the caller, never left empty nor taken from the body (they are read-only).
  for (const name of CALLER_FIELDS) {
    const fd = set.fields[name];
    if (!fd) continue;
    cols.push(ident(fd.column));
    vals.push(param(ctx.principal.userId, "int4"));
  }
  const keyCol = ident(set.fields[set.key]!.column);
  const stmt = cols.length
    ? q`insert into ${ident(set.table)} (${join(cols, ", ")}) values (${join(vals, ", ")}) returning ${keyCol} as key`
    : q`insert into ${ident(set.table)} default values returning ${keyCol} as key`;
  return enterTenant(db, ctx, async (tx) => {
    await set.guard?.create?.(tx, ctx, body);
    const [row] = await run<{ key: string | number }>(tx, stmt).catch((e) => mapDbError(set, e));
    return readBack(tx, reg, set, ctx, row!.key);
  });
}

export async function update(db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, key: string, body: Record<string, unknown>): Promise<string> {
  if (set.view) throw new ApiError("MethodNotAllowed", `${set.name} is read-only`);
  const k = parseKey(set, key);
  const repeated = body[set.key];
  if (repeated !== undefined && String(repeated) !== String(k)) {
    throw new ApiError("ValidationError", `${set.key} ${String(repeated)} does not match the key ${String(k)} in the URL`);
  }
  const sets: Sql[] = [];
  for (const [name, v] of Object.entries(body)) {
    const fd = set.fields[name];
    if (!fd?.updatable || fd.readOnly || v === undefined) continue;
    sets.push(q`${ident(fd.column)} = ${value(fd, v)}`);
  }
  if (set.fields.updatedAt) sets.push(q`${ident(set.fields.updatedAt.column)} = now()`);
  if (!sets.length) throw new ApiError("ValidationError", `Nothing to update on ${set.name}`);
  return enterTenant(db, ctx, async (tx) => {
    await set.guard?.update?.(tx, ctx, k, body);
    const rows = await run<{ key: unknown }>(tx, q`update ${ident(set.table)} t set ${join(sets, ", ")} where ${keyWhere(reg, set, ctx, k)} returning 1 as key`).catch((e) => mapDbError(set, e));
    if (!rows.length) throw new ApiError("NotFound", `${set.name}(${key}) not found`);
    return readBack(tx, reg, set, ctx, k);
  });
}

export async function remove(db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, key: string): Promise<void> {
  if (set.view) throw new ApiError("MethodNotAllowed", `${set.name} is read-only`);
  const k = parseKey(set, key);
  const stmt = set.softDelete
    ? q`update ${ident(set.table)} t set deleted_at = now() where ${keyWhere(reg, set, ctx, k)} returning 1 as key`
    : q`delete from ${ident(set.table)} t where ${keyWhere(reg, set, ctx, k)} returning 1 as key`;
  await enterTenant(db, ctx, async (tx) => {
    const after = await set.guard?.remove?.(tx, ctx, k);
    const rows = await run(tx, stmt).catch((e) => mapDbError(set, e));
    if (!rows.length) throw new ApiError("NotFound", `${set.name}(${key}) not found`);
    if (after) await after();
  });
}

function keyWhere(reg: Registry, set: EntitySetDef, ctx: RequestCtx, key: string | number): Sql {
  const kf = set.fields[set.key]!;
  const parts = [q`${col("t", kf.column)} = ${param(key, castFor(kf))}`];
  const scope = scopeFor(ctx, reg, { write: true })(set, "t");
  if (scope) parts.push(scope);
  if (set.softDelete) parts.push(raw(`"t"."deleted_at" is null`));
  return join(parts, " and ");
}

async function readBack(tx: Tx, reg: Registry, set: EntitySetDef, ctx: RequestCtx, key: string | number): Promise<string> {
  const stmt = compileEntity(reg, set, key, parseQuery({}, set, reg), { scope: scopeFor(ctx, reg) });
  const [row] = await run<{ value: string }>(tx, stmt);
  if (!row) throw new ApiError("NotFound", `${set.name}(${key}) not found after write`);
  return row.value;
}
