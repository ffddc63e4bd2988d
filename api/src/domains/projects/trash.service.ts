// The trash: rows of the soft-delete sets (Projects, ProjectQuestions, Questions,
// QuestionTemplates, TestOptions) that a DELETE moved there. GetTrashed lists them with the usual
// OData options; Undelete brings one back. Only the request's own clients' rows: a project shared
// with the caller never shows its trash.
import type { Db } from "../../db/client.ts";
import { readAsTenant } from "../../db/tx.ts";
import { enterTenant } from "../../access/policy.ts";
import { tenantOf, type RequestCtx } from "../../access/principal.ts";
import type { Registry } from "../../entities/registry.ts";
import { collectionJson, scopeFor, type CollectionRow } from "../../entities/service.ts";
import { parseQuery } from "../../odata/parser.ts";
import { compileCollection } from "../../odata/compile.ts";
import { ApiError } from "../../errors.ts";
import { dbError, readEntity } from "./common.ts";
import * as q from "./trash.sql.ts";

export const TRASH_SETS = ["Projects", "ProjectQuestions", "Questions", "QuestionTemplates", "TestOptions"] as const;
export type TrashSet = (typeof TRASH_SETS)[number];

/**
 * GET {Set}/GetTrashed: the set's rows in the trash, newest first unless $orderby says otherwise.
 * The same engine as the generic list, with the set's soft-delete guard turned round.
 */
export async function getTrashed(db: Db, reg: Registry, ctx: RequestCtx, setName: TrashSet, query: Record<string, string | undefined>, url: string): Promise<string> {
  const base = reg.mustGet(setName);
  // The root rows are the deleted ones; expansions keep their own guards.
  const set = { ...base, softDelete: false };
  const userFilter = query.$filter;
  const opts: Record<string, string | undefined> = {
    ...query,
    $filter: userFilter ? `(${userFilter}) and deletedAt ne null` : "deletedAt ne null",
    $orderby: query.$orderby ?? "deletedAt desc,id desc",
  };
  const parsed = parseQuery(opts, set, reg);
  const { text, params } = compileCollection(reg, set, parsed, { scope: scopeFor(ctx, reg, { write: true }) }).render();
  const [row] = await readAsTenant<CollectionRow>(db, tenantOf(ctx), text, params);
  return collectionJson(row!, url, parsed.top, parsed.skip);
}

/**
 * POST {Set}({key})/Undelete: the row leaves the trash. A question template also brings back its
 * question when that went with it (DeleteTemplateQuestion). Edits of a submitted project's
 * questionnaire stay refused (409), as for any other write.
 */
export async function undelete(db: Db, reg: Registry, ctx: RequestCtx, setName: TrashSet, key: number): Promise<string> {
  const set = reg.mustGet(setName);
  return enterTenant(db, ctx, async (tx) => {
    const ok = await q.restore(tx, set.table, key).catch(dbError(setName));
    if (!ok) throw new ApiError("NotFound", `${setName}(${key}) is not in the trash`);
    if (setName === "QuestionTemplates") await q.restoreTemplateQuestion(tx, key).catch(dbError("Questions"));
    return readEntity(tx, reg, ctx, setName, key);
  });
}
