// The respondent preview (issue 22): the survey a project would field, walked page by page by the
// same engine respondents meet (pages, validation, screen-out and attention rules), built from the
// project as it is now, and nothing stored: the caller holds the answers and sends them back with
// each page. Read in the caller's tenant (their own clients' projects; a Viewer may preview).
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import * as lq from "../lifecycle/lifecycle.sql.ts";
import { buildDefinition } from "./definition.ts";
import { afterPage, pages, validatePage, type Answers } from "./engine.ts";
import type { RespondentView } from "./fielding.service.ts";

export interface PreviewInput {
  /** The market to preview (default: the project's first). */
  regionId?: number;
  /** The page being answered; absent: the first page. */
  pageId?: string;
  /** This page's answers. */
  input?: Record<string, unknown>;
  /** The answers so far, as the previous preview call returned them. */
  answers?: Answers;
}

export async function preview(db: Db, ctx: RequestCtx, projectId: number, body: PreviewInput): Promise<RespondentView> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await lq.readProject(tx, projectId);
    if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const regions = await tx<{ regionId: number; sampleSize: number }[]>`
      select region_id as "regionId", sample_size as "sampleSize" from projects_regions where project_id = ${projectId} order by region_id`;
    const region = body.regionId === undefined ? regions[0] : regions.find((r) => r.regionId === body.regionId);
    if (!region) {
      throw body.regionId === undefined
        ? new ApiError("Conflict", "Choose a market first: the survey is asked per market")
        : new ApiError("ValidationError", `Region ${body.regionId} is not one of the project's markets`, undefined, [{ path: "regionId", message: "Not one of the project's markets" }]);
    }
    const def = await buildDefinition(tx, { id: 0, regionId: region.regionId, isCustomerPanel: false, targetCompletes: region.sampleSize }, projectId);
    // Every test option, in the project's order (a respondent's order is shuffled; the preview shows each).
    const all = pages(
      def,
      def.testOptions.map((t) => t.id),
    );
    let answers: Answers = body.answers ?? {};
    let index = 0;
    let status = "InProgress";
    let endReason: string | null = null;
    if (body.pageId !== undefined) {
      index = all.findIndex((x) => x.id === body.pageId);
      if (index < 0) throw new ApiError("ValidationError", `No page ${body.pageId} in this survey`, undefined, [{ path: "pageId", message: "Not a page of this survey" }]);
      const checked = validatePage(def, all[index]!, body.input ?? {});
      if ("errors" in checked) throw new ApiError("ValidationError", checked.errors.map((e) => e.message).join("; "), undefined, checked.errors);
      answers = { ...answers, ...checked.answers };
      // No quota in a preview: nobody is over quota.
      const outcome = afterPage(def, all, index, answers, { completesByOption: {}, completesByAnswer: {} });
      status = outcome.status;
      if (outcome.status === "InProgress") index = outcome.page;
      endReason = "reason" in outcome ? outcome.reason : null;
    }
    const page = status === "InProgress" ? all[index] : undefined;
    return {
      surveyLink: "preview",
      respondentId: "preview",
      status,
      page: page ? { ...page, index, total: all.length } : null,
      definition: def,
      endReason,
      answers,
      // A preview sends nobody anywhere: no supplier's end redirect.
      redirectUrl: null,
    };
  });
}
