// SQL of Duplicate: copies a project's rows into a new project, table by table, with new ids and
// every reference between the copied rows remapped to the copies. Columns are read from the
// catalog, so a column another migration adds to these tables is copied too.
import type { Tx } from "../../db/client.ts";
import type postgres from "postgres";
import { jsonParam } from "../../db/params.ts";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** Columns never copied as they are: the key and the row's own timestamps. */
const SKIP = new Set(["id", "created_at", "updated_at"]);

async function copyableColumns(tx: Tx, table: string): Promise<string[]> {
  const rows = await tx<{ name: string }[]>`
    select column_name as name from information_schema.columns
    where table_schema = 'public' and table_name = ${table} and is_generated = 'NEVER' and is_identity = 'NO'
    order by ordinal_position`;
  return rows.map((r) => r.name).filter((c) => !SKIP.has(c));
}

export type IdMap = Map<number, number>;

export interface CopySpec {
  table: string;
  /** Which rows of the source (alias t). */
  where: Fragment;
  /** Columns given a new value (alias t is the source row); cast parameters to the column's type. */
  set?: Record<string, Fragment>;
  /** Columns holding ids of rows copied before: the copy's id replaces the original's. */
  remap?: Record<string, IdMap>;
}

// A jsonb parameter: postgres.js serialises it by the type the server describes (pass the object,
// not its JSON text, or it arrives as a JSON string).
const asJson = (m: IdMap) => Object.fromEntries([...m].map(([k, v]) => [String(k), v]));

/**
 * Copies the rows `where` selects into new rows of the same table, and answers old id -> new id.
 * New ids are drawn from the table's own identity sequence first, so the mapping is known without
 * relying on the order RETURNING gives rows back.
 */
export async function copyRows(tx: Tx, spec: CopySpec): Promise<IdMap> {
  const cols = await copyableColumns(tx, spec.table);
  const exprs = cols.map((c) => {
    const set = spec.set?.[c];
    if (set) return set;
    const m = spec.remap?.[c];
    // A reference to a row that was not copied (a template question) keeps pointing at it.
    if (m) return tx`coalesce((${tx.json(asJson(m))}::jsonb ->> t.${tx(c)}::text)::int, t.${tx(c)})`;
    return tx`t.${tx(c)}`;
  });
  // Identifiers go through postgres.js's identifier escaping (tx(name)); every value is a parameter.
  // (The column list is joined by hand: after "insert into t (", tx(array) would render values.)
  const join = (xs: Fragment[]) => xs.reduce((acc: Fragment | null, e) => (acc ? tx`${acc}, ${e}` : tx`${e}`), null) ?? tx``;
  const selectList = join(exprs);
  const columnList = join(cols.map((c) => tx`${tx(c)}`));
  const rows = await tx<{ old: number; new: number }[]>`
    with m as (
      select t.id as old, nextval(pg_get_serial_sequence(${`public.${spec.table}`}, 'id'))::int as new
      from ${tx(spec.table)} t where ${spec.where}
      order by t.id
    ), ins as (
      insert into ${tx(spec.table)} (id, ${columnList})
      select m.new, ${selectList} from m join ${tx(spec.table)} t on t.id = m.old
      returning 1
    )
    select old, new from m`;
  return new Map(rows.map((r) => [r.old, r.new]));
}

export interface RoutingRow {
  id: number;
  routing: { routingConditions?: { projectQuestionId?: number; questionOptionIds?: number[] }[] } | null;
}

export async function routingsOf(tx: Tx, projectId: number): Promise<RoutingRow[]> {
  return tx<RoutingRow[]>`select id, routing from project_questions where project_id = ${projectId} and routing is not null`;
}

export async function setRouting(tx: Tx, id: number, routing: unknown): Promise<void> {
  await tx`update project_questions set routing = ${jsonParam(tx, routing)} where id = ${id}`;
}

export async function setActiveObjective(tx: Tx, projectId: number, objectiveId: number | null): Promise<void> {
  await tx`update projects set active_project_objective_id = ${objectiveId} where id = ${projectId}`;
}

export async function activeObjectiveOf(tx: Tx, projectId: number): Promise<number | null> {
  const [r] = await tx<{ id: number | null }[]>`select active_project_objective_id as id from projects where id = ${projectId}`;
  return r?.id ?? null;
}

export async function logCreated(tx: Tx, e: { clientId: number; userId: number; projectId: number; data: Record<string, unknown> }): Promise<void> {
  await tx`
    insert into data_events_log (client_id, user_id, entity_type, entity_id, event, project_id, data)
    values (${e.clientId}, ${e.userId}, 'Project', ${e.projectId}, 'Created', ${e.projectId}, ${jsonParam(tx, e.data)})`;
}
