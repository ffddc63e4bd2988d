// Fielding (SPEC 7): the SurveyRuns actions, named as the spec names them (after the survey host
// and sample marketplace the original product used), each given its meaning in our own fielding
// engine (docs/decisions.md "Fielding"); Projects({key})/DecipherCompletesCounts; and the public
// respondent API under /s/api (no sign-in; the unguessable survey link is the key).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors, keyOf } from "../../openapi.ts";
import * as svc from "./fielding.service.ts";
import { processConfig } from "../../config.ts";
import * as panel from "./simulated-panel.ts";
import * as admin from "./fielding.admin.ts";
import * as samplify from "./samplify.service.ts";
import { setSampleSource } from "./sample-source.ts";
import { KeyParams, Run, SampleSource, Created, Processed, Simulated, Respondents, Removed, TranslationCounts, CompletesCounts, QualityReport, ProjectQualityReport, json, ok, action, actionWithBody } from "./fielding.schemas.ts";

export function registerFieldingRoutes(app: App, deps: AppDeps): void {
  registerRunLaunch(app, deps);
  registerRunSourceAndQuality(app, deps);
  registerRunProcessing(app, deps);
  registerRunSampleRepairs(app, deps);
  registerFieldingCounts(app, deps);
}

/** A SurveyRuns action's answer: the run's state, its links at the server's public address (else the request's). */
function runStates(deps: AppDeps) {
  const publicUrl = (c: { req: { url: string } }) => deps.publicUrl ?? new URL(c.req.url).origin;
  return { publicUrl, state: async (c: { req: { url: string } }, runId: number) => admin.runState(deps.db, runId, publicUrl(c)) };
}

/** CreateDecipherSurveys, LaunchSurvey, ForceCloseSurvey and ExtendFieldPeriod. */
function registerRunLaunch(app: App, deps: AppDeps): void {
  const db = deps.db;
  const { publicUrl, state } = runStates(deps);
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/SurveyRuns/CreateDecipherSurveys",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_CreateDecipherSurveys",
      summary: "Create the survey runs of a project's started wave",
      description:
        "Starts the project's waves that are due (the scheduler's step), then creates one Draft survey run per region and panel of each started wave, with a snapshot of the questionnaire (demographics, screener and targets with quotas, the test loop, price and market reach questions, follow-ups, translations). Idempotent: a wave with runs gets no second one.",
      request: json(z.strictObject({ projectId: z.number().int().positive() }).openapi("CreateDecipherSurveys")),
      responses: { ...ok(Created, "The runs created"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const { projectId } = c.req.valid("json");
      await admin.assertProject(db, c.get("ctx"), projectId);
      return c.json({ runs: await svc.createSurveys(db, projectId) }, 200);
    },
  );

  addRoute(app, action("LaunchSurvey", "Open a survey run to respondents", "Draft or Testing -> Live. The project goes to Processing results (400). A customer-panel run's link goes to the team's Admins and the project owner (CustomPanelProjectReadyForSurvey); an Ideally-panel run is answered by the simulated panel.", Run), async (c) => {
    const id = keyOf(c);
    await svc.launchRun(db, id, publicUrl(c));
    return c.json(await state(c, id), 200);
  });
  addRoute(app, action("ForceCloseSurvey", "Close a survey run now", "Live or Testing -> Closed, whatever its completes; respondents still answering are removed. Then StartSurveyProcessing (the fielding tick does it within a minute), which refunds the shortfall (one SurveyRun row of the run). With Samplify configured, the run's line item is closed there too.", Run), async (c) => {
    const id = keyOf(c);
    await svc.forceClose(db, id);
    // Its Samplify line item closes too (after the close is committed; a failure is retried by the tick).
    await samplify.closeLineItemsOfClosedRuns(db, publicUrl(c), [id]);
    return c.json(await state(c, id), 200);
  });
  addRoute(app, actionWithBody(
    "ExtendFieldPeriod",
    "Move a run's field end",
    "A Live or Testing run's field end moves to `fieldEndAt` (in the future; later to extend, earlier to shorten), and a stalled run is watched afresh. At its field end a run closes with the completes it has, is processed, and the shortfall is refunded.",
    z.strictObject({ fieldEndAt: z.iso.datetime({ offset: true }).describe("The new field end (ISO 8601, in the future)") }).openapi("ExtendFieldPeriod"),
    Run,
  ), async (c) => {
    const id = keyOf(c);
    await svc.extendFieldPeriod(db, id, new Date(c.req.valid("json").fieldEndAt));
    return c.json(await state(c, id), 200);
  });
}

/** SetSampleSource and QualityReport. */
function registerRunSourceAndQuality(app: App, deps: AppDeps): void {
  const db = deps.db;
  const { state } = runStates(deps);
  addRoute(app, actionWithBody(
    "SetSampleSource",
    "Set where a run's respondents come from",
    "The run's sample source: `simulated` (the simulated Ideally panel answers it), `customer` (the team's own list at the run's link; the simulated panel never answers it) or `supplier` (only the signed respondents of `sampleSupplierId`, as SetSampleSupplier; never simulated ones). 409 once the run has a respondent (its results would mix two kinds of sample) or is Closed; setting the source it already has changes nothing. Set it between CreateDecipherSurveys and LaunchSurvey. The simulated panel is a supplier of its own (its people enter through the run's signed entry link); with the server's panel off (SIMULATED_PANEL=off) `simulated` is refused (409), and the panel's own supplier is never a `supplier` run's (409).",
    z
      .strictObject({
        sampleSource: SampleSource,
        sampleSupplierId: z.number().int().positive().nullable().optional().describe("The supplier (SampleSuppliers) of a `supplier` run; null or absent otherwise"),
      })
      .openapi("SetSampleSource"),
    Run,
  ), async (c) => {
    const id = keyOf(c);
    const body = c.req.valid("json");
    // A run that asks for the simulated panel when the server's panel is off is refused: nobody would answer it.
    if (body.sampleSource === "simulated" && !(deps.simulatedPanel ?? processConfig().simulatedPanel)) throw panel.panelOff(id);
    await setSampleSource(db, id, body.sampleSource, body.sampleSupplierId ?? null);
    return c.json(await state(c, id), 200);
  });
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SurveyRuns/{key}/QualityReport",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_QualityReport",
      summary: "A run's respondent quality: exclusions per reason",
      request: { params: KeyParams("SurveyRuns") },
      responses: { ...ok(QualityReport, "The run's quality report"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await admin.runQualityReport(db, keyOf(c)), 200),
  );
}

/** Processing, simulated data, Decipher sync, translations and the Samplify project and line items. */
function registerRunProcessing(app: App, deps: AppDeps): void {
  const db = deps.db;
  const { publicUrl, state } = runStates(deps);
  addRoute(app, action("StartSurveyProcessing", "Process a closed survey run", "Ingests any completes not yet in the results, rakes the run's sample to the region's census margins (age group, gender, region; weights capped to 0.2-5, margins within 0.001 unless the cap binds), and when no other run of the wave is open closes the project's survey (800 or 900, ResultsReady). Safe to call twice.", Processed), async (c) => c.json(await svc.processRun(db, keyOf(c)), 200));
  addRoute(app, action("ProcessProjectData", "Process a survey run's data again", "As StartSurveyProcessing, also for a run processed before: the weights are computed again (e.g. after respondents were removed).", Processed), async (c) => c.json(await svc.processRun(db, keyOf(c), { reprocess: true }), 200));
  addRoute(app, actionWithBody(
    "RunSimulatedData",
    "Answer a live run with the simulated Ideally panel",
    "Up to `completes` simulated respondents (seeded, concept-dependent answers) take the survey as a sample supplier's respondents do: each enters through the run's entry link with its rid and the simulated panel's signature, answers page by page through the respondent survey's own code (the same entry check, validation, quota, quality and outcome rules as the routes; a batch of people in one transaction), and is sent back to the panel's signed end link; the run closes at its quota. People are drawn from the market as the incidence estimate sees it (each target group's census share), so screen-outs follow incidence, and the panel invites at most its reach in the market over the run's field period: a design the estimate calls infeasible gets about its deliverable completes. 409 for a run with a sample supplier (it takes only the supplier's respondents) and when the server's simulated panel is off (SIMULATED_PANEL=off).",
    z.strictObject({ completes: z.number().int().min(1).max(5000).default(50) }).openapi("RunSimulatedData"),
    Simulated,
  ), async (c) =>
    c.json(await panel.simulate(db, keyOf(c), c.req.valid("json").completes, { publicUrl: deps.publicUrl ?? new URL(c.req.url).origin, on: deps.simulatedPanel }), 200),
  );
  addRoute(app, action("SyncDecipherSurvey", "Take the questionnaire snapshot again", "A Draft, Testing or Live run's survey is rebuilt from its project as it is now (a staff fix after SuperAdminUpdate).", Run), async (c) => {
    const id = keyOf(c);
    await svc.resyncDefinition(db, id);
    return c.json(await state(c, id), 200);
  });
  addRoute(app, action("ReuploadTranslations", "Refresh a run's translated texts", "The run's survey takes the region's current TranslatedTextRegions texts.", Run), async (c) => {
    const id = keyOf(c);
    await admin.refreshTranslations(db, id);
    return c.json(await state(c, id), 200);
  });
  addRoute(app, actionWithBody(
    "CreateOrUpdateSamplifyProject",
    "Set a run's panel order",
    "Sets how many completes the run's panel delivers (its quota); a Live run that already has them closes. With Samplify configured (SAMPLIFY_*), the run's line item in its wave's Samplify project is created or updated too: market, quota (targets), its targets and quotas as Dynata's quotaPlan (what has no Dynata attribute is named in samplify.warnings), incidence, length of interview, days in field, the run's entry link as the run's sample supplier (SetSampleSupplier first) and a distinct test link that counts for nothing; Dynata's end links and security level from the answer are kept, and the run's respondents go back to them.",
    z.strictObject({ targetCompletes: z.number().int().min(1).max(100000) }).openapi("CreateOrUpdateSamplifyProject"),
    Run,
  ), async (c) => {
    const id = keyOf(c);
    // Samplify's preconditions first: a refused order changes nothing, the quota included.
    if (samplify.configured()) await samplify.assertOrderable(db, id, publicUrl(c));
    await admin.setTarget(db, id, c.req.valid("json").targetCompletes);
    if (samplify.configured()) await samplify.createOrUpdate(db, id, publicUrl(c));
    return c.json(await state(c, id), 200);
  });
  addRoute(app, actionWithBody(
    "SamplifyLineItemState",
    "Launch, pause or close a run's Samplify line item",
    "Launch buys the line item first while Samplify has it only provisioned. 503 when Samplify is not configured; 409 before CreateOrUpdateSamplifyProject.",
    z.strictObject({ action: z.enum(["launch", "pause", "close"]) }).openapi("SamplifyLineItemState"),
    z.object({ surveyRunId: z.number().int(), extProjectId: z.string(), extLineItemId: z.string(), state: z.string() }).openapi("SamplifyLineItemStateResult"),
  ), async (c) => c.json(await samplify.setState(db, keyOf(c), c.req.valid("json").action, publicUrl(c)), 200));
}

/** SamplifyFeasibility, the respondent lists and BackwardsSync. */
function registerRunSampleRepairs(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SurveyRuns/{key}/SamplifyFeasibility",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_SamplifyFeasibility",
      summary: "Samplify's feasibility and cost of a run's line item",
      description: "Samplify's answer for the line item (status READY or PROCESSING: ask again in a couple of minutes), with the estimated cost (cost per interview × quota). 503 when Samplify is not configured.",
      request: { params: KeyParams("SurveyRuns") },
      responses: {
        ...ok(
          z
            .object({
              surveyRunId: z.number().int(),
              extLineItemId: z.string(),
              requiredCompletes: z.number().int(),
              feasibility: z.object({ status: z.enum(["READY", "PROCESSING", "NOT_SUPPORTED", "FAILED"]), costPerInterview: z.number(), currency: z.string(), feasible: z.boolean(), totalCount: z.number().int() }),
              estimatedCost: z.number().nullable(),
            })
            .openapi("SamplifyFeasibility"),
          "Feasibility and cost",
        ),
        ...commonErrors,
        404: errors[404],
        409: errors[409],
        503: errorResponse("Samplify is not configured on this server, or did not answer"),
      },
    },
    async (c) => c.json(await samplify.feasibility(db, keyOf(c)), 200),
  );
  addRoute(app, actionWithBody(
    "DecipherRespondents",
    "List a run's respondents",
    "Every respondent session of the run with its status (InProgress, Complete, ScreenedOut, OverQuota, Removed), newest first, paged.",
    z.strictObject({ page: z.number().int().min(1).default(1), pageSize: z.number().int().min(1).max(1000).default(100), status: z.enum(["InProgress", "Complete", "ScreenedOut", "OverQuota", "Removed"]).optional() }).openapi("DecipherRespondents"),
    Respondents,
  ), async (c) => c.json(await admin.respondents(db, keyOf(c), c.req.valid("json")), 200));
  addRoute(app, actionWithBody(
    "RemoveUuidsFromSurvey",
    "Remove respondents by id",
    "Marks the respondents Removed (by respondent id or panel respondent id), takes their answers out of the results, and weights the run's sample again when it was processed.",
    z.strictObject({ uuids: z.array(z.string().min(1).max(200)).min(1).max(10000) }).openapi("RemoveUuidsFromSurvey"),
    Removed,
  ), async (c) => c.json(await admin.removeRespondents(db, keyOf(c), c.req.valid("json").uuids), 200));
  addRoute(app, actionWithBody(
    "RemoveRespondentsCsv",
    "Remove respondents listed in a CSV",
    "As RemoveUuidsFromSurvey, with the ids in the first column of a CSV text (a header row is skipped when it is not an id).",
    z.strictObject({ csv: z.string().min(1).max(2_000_000) }).openapi("RemoveRespondentsCsv"),
    Removed,
  ), async (c) => c.json(await admin.removeRespondents(db, keyOf(c), admin.idsFromCsv(c.req.valid("json").csv)), 200));
  addRoute(app, action("BackwardsSync", "Rebuild a run's results from its raw answers", "Every complete respondent's results rows are written again from the answers kept on the session (after a fix to the snapshot), then the run is weighted again.", Processed), async (c) => c.json(await admin.backwardsSync(db, keyOf(c)), 200));
}

/** DecipherTranslationCounts, DecipherCompletesCounts and the project's QualityReport. */
function registerFieldingCounts(app: App, deps: AppDeps): void {
  const db = deps.db;
  const publicUrl = (c: { req: { url: string } }) => deps.publicUrl ?? new URL(c.req.url).origin;
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SurveyRuns/{key}/DecipherTranslationCounts",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_DecipherTranslationCounts",
      summary: "How much of a run's survey is translated for its region",
      description: "The texts the run's survey shows (questions, options, concepts) and how many have a translation for the region in TranslatedTextRegions; the untranslated ones are listed.",
      request: { params: KeyParams("SurveyRuns") },
      responses: { ...ok(TranslationCounts, "Translation counts"), ...commonErrors, 404: errors[404], 409: errorResponse("The run has no survey yet") },
    },
    async (c) => c.json(await admin.translationCounts(db, keyOf(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/DecipherCompletesCounts",
      tags: ["Projects"],
      operationId: "Projects_DecipherCompletesCounts",
      summary: "Respondents per survey run of a project",
      description: "For each survey run of the project: started, in progress, complete, screened out, over quota and removed respondents, with the run's quota and wave, a customer-panel run's respondent link, and each quota cell's completes against its cap.",
      request: { params: KeyParams("Projects") },
      responses: { ...ok(CompletesCounts, "Counts per run"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await admin.completesCounts(db, c.get("ctx"), keyOf(c), publicUrl(c)), 200),
  );
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/QualityReport",
      tags: ["Projects"],
      operationId: "Projects_QualityReport",
      summary: "Respondent quality per survey run of a project",
      description: "For each survey run of the project: valid completes, respondents excluded before weighting, and how many per reason (docs/decisions.md \"Respondent quality\").",
      request: { params: KeyParams("Projects") },
      responses: { ...ok(ProjectQualityReport, "Quality per run"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await admin.projectQualityReport(db, c.get("ctx"), keyOf(c)), 200),
  );
}
