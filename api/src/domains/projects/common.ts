// Pieces every part of project authoring uses: reading entities back in the registry's shape (so a
// domain call answers exactly what GET /Set({key}) would), the project a write is about, the
// submitted-project lock, and database errors as API errors.
import { z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import type { JSONValue } from "hono/utils/types";
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import type { RequestCtx } from "../../access/principal.ts";
import type { Registry } from "../../entities/registry.ts";
import { scopeFor } from "../../entities/service.ts";
import type { SqlParams } from "../../db/client.ts";
import { parseQuery } from "../../odata/parser.ts";
import { compileCollection, compileEntity } from "../../odata/compile.ts";
import * as q from "./projects.sql.ts";

/** A project's status from which its questionnaire is fixed (100 Submitted). */
export const SUBMITTED = 100;

export const keyParam = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d+$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key` }),
  });

/** The route's `{key}` as a number (keyParam checked its form); c is any handler context of a route with keyParam. */
export function keyOf(c: { req: { valid(t: "param"): { key: string } } }): number {
  const n = Number(c.req.valid("param").key);
  if (!Number.isSafeInteger(n)) throw new ApiError("BadRequest", "The key must be an integer");
  return n;
}

/**
 * A JSON text from PostgreSQL, forwarded as is: the answer of a route whose declared schema is the
 * registry's (schemasFor, a z.ZodType of no static shape, so its `c.json` body is any JSONValue).
 * Narrowing the Response to that TypedResponse is the one trusted step: the compiler cannot see a
 * JSON text's value, and the registry renders the entity its schema describes.
 */
export const rawJson = <S extends 200 | 201>(text: string, status: S) =>
  new Response(text, { status, headers: { "content-type": "application/json; charset=utf-8" } }) as Response & TypedResponse<JSONValue, S, "json">;

/**
 * A service's finished Response (a file, with its own status 200 and headers) as the route's
 * non-JSON answer: a Response carries no body type, so this is a plain downcast, like rawJson's.
 */
export const fileAnswer = (res: Response) => res as Response & TypedResponse<unknown, 200, "body">;

/** One entity as GET /Set({key}) shows it (with optional $expand), read in the caller's transaction. */
export async function readEntity(tx: Tx, reg: Registry, ctx: RequestCtx, setName: string, key: number, query: Record<string, string> = {}): Promise<string> {
  const set = reg.mustGet(setName);
  const { text, params } = compileEntity(reg, set, key, parseQuery(query, set, reg), { scope: scopeFor(ctx, reg) }).render();
  // Safe: compiled from registry names; values are parameters (db/sqltext.ts).
  const [row] = await tx.unsafe<{ value: string }[]>(text, params as SqlParams, { prepare: true });
  if (!row) throw new ApiError("NotFound", `${setName}(${key}) not found`);
  return row.value;
}

/** Rows of a set as GET /Set?$filter=... shows them: the JSON array text. */
export async function readEntities(tx: Tx, reg: Registry, ctx: RequestCtx, setName: string, query: Record<string, string>): Promise<string> {
  const set = reg.mustGet(setName);
  const { text, params } = compileCollection(reg, set, parseQuery({ $top: "1000", ...query }, set, reg), { scope: scopeFor(ctx, reg) }).render();
  const [row] = await tx.unsafe<{ value: string }[]>(text, params as SqlParams, { prepare: true });
  return row!.value;
}

/**
 * The project a write is about: one of the request's own clients' (a project shared with the caller
 * is readable only), not in the trash, locked for the rest of the transaction. 404 otherwise.
 */
export async function projectForWrite(tx: Tx, projectId: number): Promise<q.ProjectRow> {
  const p = await q.ownProject(tx, projectId, { lock: true });
  if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
  return p;
}

/** 409 once the project is submitted: its questionnaire, targets and regions are fixed. */
export function assertEditable(p: q.ProjectRow): void {
  if (p.statusCode >= SUBMITTED) {
    throw new ApiError(
      "Conflict",
      `Project ${p.id} is submitted (status ${p.statusCode}): its questionnaire, targets and regions can no longer be changed`,
      "Only a super admin can edit a submitted project (Questions and TestOptions SuperAdminUpdate).",
    );
  }
}

/**
 * Lets the rest of the caller's transaction edit a submitted project (the database lock of
 * migration 0014 reads this transaction-local setting). For super-admin edits only.
 */
export async function allowSubmittedEdits(tx: Tx): Promise<void> {
  await tx`select set_config('app.allow_submitted_edit', 'on', true)`;
}

/** A PostgreSQL error as the API's error (constraint violations, the submitted lock). */
export function dbError(what: string) {
  return (e: unknown): never => {
    const code = (e as { code?: string }).code;
    const detail = (e as { detail?: string }).detail;
    if (code === "55000") throw new ApiError("Conflict", (e as Error).message);
    if (code === "23503") throw new ApiError("Conflict", `${what}: a referenced row does not exist or other rows still refer to this one`, detail);
    if (code === "23505") throw new ApiError("Conflict", `${what}: a row with the same unique values exists`, detail);
    if (code === "23514" || code === "23502" || code === "22P02" || code === "22003") {
      throw new ApiError("ValidationError", `${what}: a value breaks a constraint`, detail);
    }
    throw e;
  };
}

/** Distinct values, in first-seen order. */
export const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];
