// The entity registry's vocabulary: one declaration per OData entity set. Routes, OpenAPI entries,
// request validation, the OData allow-list and tenant scoping are all derived from these.
import type { ZodType } from "zod";
import type { Tx } from "../db/client.ts";
import type { RequestCtx } from "../access/principal.ts";

/** How a value of a field is typed on the wire and in PostgreSQL. */
export type FieldType =
  | "int" // int4 / int2
  | "bigint" // int8, sent as a JSON number (ids and amounts stay far below 2^53)
  | "number" // numeric / float8, sent as a JSON number
  | "string" // text / varchar
  | "boolean"
  | "datetime" // timestamptz, ISO 8601 on the wire
  | "date" // date, YYYY-MM-DD on the wire
  | "uuid"
  | "json"; // jsonb: a JSON value of whatever shape

export interface FieldDef {
  /** snake_case column; derived from the property name when omitted. */
  column: string;
  type: FieldType;
  /** The column may be NULL. */
  nullable: boolean;
  /** Set by the server only (keys, timestamps, computed values): never accepted in a body. */
  readOnly: boolean;
  /** Must be given on POST (not nullable, no default, not read-only). */
  required: boolean;
  /** Accepted on PATCH (defaults to !readOnly). */
  updatable: boolean;
  /** May appear in $filter / $orderby / $apply (defaults to true). */
  filterable: boolean;
  /** For strings: the longest value accepted. */
  maxLength?: number;
  /** Integer bounds (inclusive), checked before the write (a 400, not a database error). */
  min?: number;
  max?: number;
  /** Allowed values, for small closed enumerations (status codes are checked by the domain). */
  enumValues?: readonly (string | number)[];
  description?: string;
  /**
   * For json: the shape of the value as the API returns it, published in the row schema so typed
   * clients read it without casts. Documentation of the answer only: bodies are not checked against it.
   */
  shape?: ZodType;
  /**
   * The value's own zod declaration (not null), when a domain route writes the field too: the
   * registry's bodies and row schema use it as it is, and the domain's bodies pick the same object
   * (e.g. entities/projects.ts ProjectFields), so one declaration holds the field's limits. Replaces
   * maxLength, min and max, which must not be given beside it.
   */
  schema?: ZodType;
}

/**
 * A navigation property. `one`: this row's `localField` holds the target's key (or a target field
 * named by `targetField`). `many`: the target's `targetField` holds this row's key (or the value of
 * `localField`).
 */
export interface NavDef {
  kind: "one" | "many";
  target: string; // entity set name
  localField: string; // property on this set
  targetField: string; // property on the target set
  description?: string;
}

/**
 * How rows reach a tenant.
 * - client: rows belong to a client (column `client_id`, property `clientId`).
 * - user: rows belong to one user (column `user_id`, property `userId`).
 * - global: reference data, readable by every signed-in user, written by staff only.
 * - shared: client rows that a project share also makes readable (read only) to the share's user
 *   (rows carry `client_id` and a project column).
 */
export type Scope = "client" | "user" | "global" | "shared";

export type Verb = "post" | "patch" | "delete";

export interface EntitySetDef {
  /** The OData entity set name, exactly as SPEC.md spells it. */
  name: string;
  /** Table or view. */
  table: string;
  /** Key property (always a single column). */
  key: string;
  fields: Record<string, FieldDef>;
  nav: Record<string, NavDef>;
  scope: Scope;
  /** The column holding the client id for client/shared scope (default client_id; Clients: id). */
  clientColumn: string;
  /** For shared scope: the column holding the project id (default project_id; Projects: id). */
  projectColumn: string;
  /**
   * For client-scoped sets whose rows carry no client column (Users): a to-many navigation whose
   * target rows carry it; a row is in scope when any of those rows is.
   */
  clientVia?: string;
  /** With clientVia: the field holding a user id that makes a row the caller's own (Users: id). */
  ownRowField?: string;
  /** Generic write verbs SPEC.md section 7 lists for this set. GET is always present. */
  verbs: readonly Verb[];
  /**
   * Who may use the generic writes when the scope's default is too wide (see entities/routes.ts):
   * `admin` (Admins of the client) or `staff`.
   */
  writeAccess?: "admin" | "staff";
  /**
   * The domain's rules for the generic writes of this set, checked in the write's own transaction
   * (entities/service.ts), so a generic POST/PATCH/DELETE never skips what the domain action checks.
   */
  guard?: WriteGuard;
  /** Rows have deleted_at; generic reads hide deleted rows, DELETE sets deleted_at. */
  softDelete: boolean;
  /** A SQL view (computed set): never written. */
  view: boolean;
  /** Default $orderby when none is given (the key otherwise). */
  defaultOrder?: string;
  description: string;
}

// ---- builders: keep declarations short and uniform ----

type FieldOpts = Partial<Omit<FieldDef, "type">>;

function field(type: FieldType, opts: FieldOpts = {}): FieldDef {
  const readOnly = opts.readOnly ?? false;
  const nullable = opts.nullable ?? false;
  return {
    column: opts.column ?? "",
    type,
    nullable,
    readOnly,
    required: opts.required ?? false,
    updatable: opts.updatable ?? !readOnly,
    filterable: opts.filterable ?? true,
    maxLength: opts.maxLength,
    min: opts.min,
    max: opts.max,
    enumValues: opts.enumValues,
    description: opts.description,
    shape: opts.shape,
    schema: opts.schema,
  };
}

/** Field builders. `required` means "must be in a POST body". */
export const f = {
  /** Server-generated integer key. */
  key: (opts: FieldOpts = {}) => field("int", { readOnly: true, ...opts }),
  /** Client-chosen integer key (reference data whose ids the spec fixes). */
  fixedKey: (opts: FieldOpts = {}) => field("int", { required: true, updatable: false, ...opts }),
  int: (opts: FieldOpts = {}) => field("int", opts),
  bigint: (opts: FieldOpts = {}) => field("bigint", opts),
  number: (opts: FieldOpts = {}) => field("number", opts),
  string: (opts: FieldOpts = {}) => field("string", opts),
  boolean: (opts: FieldOpts = {}) => field("boolean", opts),
  datetime: (opts: FieldOpts = {}) => field("datetime", opts),
  date: (opts: FieldOpts = {}) => field("date", opts),
  uuid: (opts: FieldOpts = {}) => field("uuid", opts),
  json: (opts: FieldOpts = {}) => field("json", opts),
  /** The tenant column: set from the request's client, never from a body. */
  clientId: () => field("int", { readOnly: true, description: "The owning client (tenant)." }),
  createdAt: () => field("datetime", { readOnly: true }),
  updatedAt: () => field("datetime", { readOnly: true, nullable: true }),
  deletedAt: () => field("datetime", { readOnly: true, nullable: true }),
};

export const nav = {
  /** To-one: `localField` on this set holds the target's `targetField` (its key by default). */
  one: (target: string, localField: string, targetField = "id"): NavDef => ({
    kind: "one",
    target,
    localField,
    targetField,
  }),
  /** To-many: the target's `targetField` holds this set's `localField` (its key by default). */
  many: (target: string, targetField: string, localField = "id"): NavDef => ({
    kind: "many",
    target,
    localField,
    targetField,
  }),
};

export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c, i: number) => (i ? "_" : "") + c.toLowerCase());
}

/**
 * A set's domain rules on the generic writes. Each runs inside the write's tenant transaction,
 * before the statement; it throws an ApiError to refuse. `remove` may answer a check to run after
 * the row is gone (for rules about what remains, such as a client's last Admin).
 */
export interface WriteGuard {
  create?(tx: Tx, ctx: RequestCtx, body: Record<string, unknown>): Promise<void>;
  update?(tx: Tx, ctx: RequestCtx, key: string | number, body: Record<string, unknown>): Promise<void>;
  remove?(tx: Tx, ctx: RequestCtx, key: string | number): Promise<(() => Promise<void>) | void>;
}

export interface EntityInput {
  name: string;
  table: string;
  key?: string;
  fields: Record<string, FieldDef>;
  nav?: Record<string, NavDef>;
  scope: Scope;
  clientColumn?: string;
  projectColumn?: string;
  clientVia?: string;
  ownRowField?: string;
  verbs?: readonly Verb[];
  writeAccess?: "admin" | "staff";
  guard?: WriteGuard;
  softDelete?: boolean;
  view?: boolean;
  defaultOrder?: string;
  description: string;
}

/** Declares an entity set; fills derived column names. */
export function entity(input: EntityInput): EntitySetDef {
  const fields: Record<string, FieldDef> = {};
  for (const [prop, def] of Object.entries(input.fields)) {
    if (def.schema && (def.maxLength !== undefined || def.min !== undefined || def.max !== undefined)) {
      throw new Error(`${input.name}.${prop}: limits are declared in its schema, not beside it`);
    }
    fields[prop] = { ...def, column: def.column || snake(prop) };
  }
  return {
    name: input.name,
    table: input.table,
    key: input.key ?? "id",
    fields,
    nav: input.nav ?? {},
    scope: input.scope,
    clientColumn: input.clientColumn ?? "client_id",
    projectColumn: input.projectColumn ?? "project_id",
    clientVia: input.clientVia,
    ownRowField: input.ownRowField,
    verbs: input.verbs ?? [],
    writeAccess: input.writeAccess,
    guard: input.guard,
    softDelete: input.softDelete ?? false,
    view: input.view ?? false,
    defaultOrder: input.defaultOrder,
    description: input.description,
  };
}
