// The one thing openapi-fetch cannot say about an OData entity set: which properties a row has.
// The document types every property of a row optional, because $select and $expand decide what
// comes back. A caller names the row it asked for with Row<> (properties of the generated schema,
// nothing hand-typed), and selected() narrows the answer to it: the answer must be a looser form
// of that row (same names, same types), so a renamed or retyped property still fails to compile.
import type { ApiClient, Schemas, paths } from "./client";

/** The entity sets' row schemas (components.schemas), by set name. */
export type EntitySet = keyof Schemas & string;

type Present<T> = Exclude<T, undefined>;

/**
 * A row of entity set `S` as a query returns it: the properties `K` it $selects (every scalar
 * property without $select) are present, and `E` types what it $expands (each key a navigation
 * property of the set, each value built from Row<> of the target set).
 */
export type Row<S extends EntitySet, K extends keyof Schemas[S], E extends { [P in keyof E]: P extends keyof Schemas[S] ? unknown : never } = Record<never, never>> = {
  [P in K]-?: Present<Schemas[S][P]>;
} & E;

/** A schema as openapi-fetch answers it (its Readable<>): tuples read as arrays. */
export type Readable<T> = T extends readonly (infer E)[] ? Readable<E>[] : T extends object ? { [P in keyof T]: Readable<T[P]> } : T;

/** A page of an entity set: `{ value, @odata.count?, @odata.nextLink? }`. */
export type Page<T> = { value: T[]; "@odata.count"?: number; "@odata.nextLink"?: string };

/** What a typed call resolves to (openapi-fetch's FetchResponse, reduced to what callers read). */
export type Answer<T> = { data?: T; error?: unknown; response: Response };

/** T with every property optional, all the way down: what the document promises for a row. */
export type Loose<T> = T extends readonly (infer U)[] ? Loose<U>[] : T extends object ? { [P in keyof T]?: Loose<T[P]> } : T;

/**
 * The answer of a query on an entity set (a page or one row), typed as the row the query asked for:
 * `selected<Page<Row<"Projects", "id" | "projectName">>>(api.GET("/api/v1/Projects", ...))`.
 * Compiles only when the call's documented answer fits `T` loosely (every property of `T` exists
 * in the schema with the same type). The value is returned as is.
 */
export function selected<T>(call: Promise<Answer<Loose<NoInfer<T>>>>): Promise<Answer<T>> {
  return call as Promise<Answer<T>>;
}

/** The entity sets listed at `GET /api/v1/{set}` (every set the document lists). */
export type ListSet = { [S in EntitySet]: `/api/v1/${S}` extends keyof paths ? (paths[`/api/v1/${S}`] extends { get: unknown } ? S : never) : never }[EntitySet];

/** The OData query options of a list (the same on every set). */
export type ODataQuery = NonNullable<paths["/api/v1/Projects"]["get"]["parameters"]["query"]>;

/**
 * The entity sets whose rows a row type `T` describes: every property of `T` is a property of the
 * set's schema (counts of an $expand, `x@odata.count`, included), with a type the schema allows.
 * A renamed property, or one of another set, leaves no set, and the call does not compile.
 */
export type SetFor<T> = {
  [S in ListSet]: [Exclude<keyof T, keyof Schemas[S]>] extends [never] ? (Schemas[S] extends Loose<T> ? S : never) : never;
}[ListSet];

/**
 * `GET /api/v1/{set}` when the set is a value (a list helper shared by pages): the page of rows
 * typed `T`, which must be a row of that set (SetFor<T>; Row<> builds one from the schema).
 * `listSet<Row<"Clients", "id" | "name">>(api, "Clients", { $select: "id,name" })`.
 */
export function listSet<T>(client: ApiClient, set: SetFor<T> & ListSet, query: ODataQuery, headers?: Record<string, string>): Promise<Answer<Page<T>>> {
  const path: `/api/v1/${ListSet}` = `/api/v1/${set}`;
  const answer: Promise<Answer<unknown>> = client.GET(path, { params: { query }, headers });
  return answer as Promise<Answer<Page<T>>>;
}
