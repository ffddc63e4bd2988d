// The public respondent survey (no sign-in): /s/{surveyLink} is the page a respondent opens (a
// small server-rendered app, phone first), and /s/api/{surveyLink}/... the JSON it talks to. The
// survey link is an unguessable UUID per run; a respondent id (UUID) is handed out at the start and
// kept by the page, so a reload resumes where it left off.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, errorResponse, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { WindowLimiter } from "../../ops/rate-limit.ts";
import { ATTENTION, answerKey, INTENT_AT, INTENT_SCALE, intentKey } from "./engine.ts";
import type * as svc from "./fielding.service.ts";
import * as respondents from "./respondents.service.ts";
import { SURVEY_PAGE_CSS, SURVEY_PAGE_HTML, SURVEY_PAGE_SCRIPT } from "./respondent.page.ts";
import { nudgeSupplierCallbacks } from "./suppliers.jobs.ts";

const Link = z.object({
  link: z
    .string()
    .uuid()
    .openapi({ param: { name: "link", in: "path" }, description: "The survey run's link" }),
});
const LinkAndRespondent = Link.extend({
  respondentId: z
    .string()
    .uuid()
    .openapi({ param: { name: "respondentId", in: "path" }, description: "The respondent's id, from start" }),
});

const Question = z.object({
  key: z.string().describe("The answer's name in `answers`"),
  type: z.enum(["single", "multiple", "text", "dropdown", "price"]),
  title: z.string(),
  text: z.string(),
  options: z.array(z.object({ id: z.number().int(), text: z.string(), exclusive: z.boolean() })),
});
export const View = z
  .object({
    respondentId: z.string(),
    status: z.enum(["InProgress", "Complete", "ScreenedOut", "OverQuota", "Removed"]),
    message: z.string().nullable().describe("The end page's text, once the survey is over for the respondent"),
    redirectUrl: z
      .string()
      .nullable()
      .describe(
        "A sample supplier's respondent at the end: the supplier's complete, screen-out, over-quota or quality-terminate link with {rid} filled in (and its signature parameter when the supplier has a secret); the page goes there",
      ),
    currencySymbol: z.string(),
    page: z
      .object({
        id: z.string(),
        kind: z.enum(["demographics", "screener", "concept", "price", "intent", "attention", "followUps"]),
        index: z.number().int(),
        total: z.number().int(),
        heading: z.string(),
        concept: z.object({ text: z.string(), description: z.string().nullable(), imageUrl: z.string().nullable().describe("A signed, expiring link to the concept's image") }).nullable(),
        questions: z.array(Question),
      })
      .nullable(),
  })
  .openapi("RespondentView");

const END: Record<string, string> = {
  Complete: "Thank you! Your answers have been recorded.",
  ScreenedOut: "Thank you for your time. Unfortunately you do not qualify for this survey.",
  OverQuota: "Thank you for your time. We already have enough answers from people like you.",
  Removed: "This survey has closed. Thank you for your interest.",
};

/** A supplier's respondent entering again after finishing. */
const DUPLICATE = "You have already taken part in this survey. Thank you.";

const HEADING: Record<string, string> = {
  demographics: "A little about you",
  screener: "A few questions first",
  concept: "Please read the idea below, then answer",
  price: "Thinking about the price of this idea",
  intent: "At the prices you gave",
  attention: "A quick check",
  followUps: "Almost done",
};

/** What the page shows: the current page's questions in the region's language, never other answers. */
export type ImageUrl = (key: string, fileType: string | null) => Promise<string | null>;

export async function present(v: svc.RespondentView, imageUrl: ImageUrl): Promise<z.infer<typeof View>> {
  const def = v.definition;
  const tr = (s: string) => def.translations[s] ?? s;
  const p = v.page;
  const concept = p?.testOptionId != null ? def.testOptions.find((t) => t.id === p.testOptionId) : undefined;
  return {
    respondentId: v.respondentId,
    status: v.status as z.infer<typeof View>["status"],
    // Excluded for quality: thanked like anyone who does not qualify.
    message:
      v.status === "InProgress"
        ? null
        : v.status === "Removed" && v.endReason === "quality"
          ? END.ScreenedOut!
          : v.status === "Removed" && v.endReason === "duplicate"
            ? DUPLICATE
            : (END[v.status] ?? null),
    redirectUrl: v.redirectUrl,
    currencySymbol: def.currencySymbol,
    page: p
      ? {
          id: p.id,
          kind: p.kind,
          index: p.index,
          total: p.total,
          heading: tr(HEADING[p.kind]!),
          concept: concept
            ? {
                text: tr(concept.conceptText),
                description: concept.conceptDescription ? tr(concept.conceptDescription) : null,
                imageUrl: concept.fileKey && concept.fileType?.startsWith("image/") ? await imageUrl(concept.fileKey, concept.fileType) : null,
              }
            : null,
          questions:
            p.kind === "intent"
              ? INTENT_AT.map((std) => {
                  const price =
                    v.answers[`q${def.loop.find((q) => q.standardQuestionId === std && (q.testOptionId === null || q.testOptionId === p.testOptionId))?.projectQuestionId}:t${p.testOptionId}`];
                  return {
                    key: intentKey(std, p.testOptionId!),
                    type: "single" as const,
                    title: tr(std === 20 ? "At your bargain price" : "At your getting-expensive price"),
                    text: `${tr("How likely would you be to buy it at")} ${def.currencySymbol}${typeof price === "number" ? price.toFixed(2) : "?"}?`,
                    options: INTENT_SCALE.map((o) => ({ id: o.value, text: tr(o.text), exclusive: false })),
                  };
                })
              : p.kind === "attention"
                ? [{ key: ATTENTION.key, type: "single" as const, title: "", text: tr(ATTENTION.text), options: ATTENTION.options.map((o, i) => ({ id: i, text: tr(o), exclusive: false })) }]
                : p.questions.map((q) => ({
                    key: answerKey(q, p.testOptionId),
                    type: q.type,
                    title: tr(q.title),
                    text: tr(q.text),
                    options: q.options.map((o) => ({ id: o.id, text: tr(o.text), exclusive: o.exclusive })),
                  })),
        }
      : null,
  };
}

const ok = { 200: { description: "Where the respondent is", content: { "application/json": { schema: View } } } };
const refusals = { 400: errors[400], 404: errors[404], 409: errors[409], 429: errorResponse("Too many requests from this address: wait the Retry-After seconds") };

/** Starts of a survey one address may make in a minute (a respondent starts once; a household a few times). */
export const SURVEY_STARTS_PER_MINUTE = 20;
/** Calls of the public survey API one address may make in a minute (a respondent answers a page every few seconds). */
export const SURVEY_CALLS_PER_MINUTE = 300;

// Concept images: signed, expiring download links from the file storage (absent: no image).
const signer =
  (deps: AppDeps, c: { req: { url: string } }): ImageUrl =>
  async (key, fileType) =>
    deps.storage ? (await deps.storage.downloadUrl({ key, contentType: fileType ?? undefined, baseUrl: deps.publicUrl ?? new URL(c.req.url).origin, expiresIn: 3600 })).url : null;

export function registerRespondentRoutes(app: App, deps: AppDeps): void {
  registerSurveyRateLimit(app, deps);
  registerSurveyStartAndGet(app, deps);
  registerSurveyAnswerAndPage(app, deps);
}

/** The public survey API's per-address rate limit, before its routes. */
function registerSurveyRateLimit(app: App, deps: AppDeps): void {
  // The anonymous survey writes on every call: one address is limited (ops/rate-limit.ts). Without
  // the peer's address (an app embedded in tests or another host) there is nothing to key on.
  const starts = new WindowLimiter(SURVEY_STARTS_PER_MINUTE, 60_000);
  const calls = new WindowLimiter(SURVEY_CALLS_PER_MINUTE, 60_000);
  app.use("/s/api/*", async (c, next) => {
    const ip = deps.clientIp?.(c.req.raw);
    if (ip) {
      const wait = (c.req.method === "POST" && c.req.path.endsWith("/start") ? starts.take(ip) : 0) || calls.take(ip);
      if (wait) throw new ApiError("TooManyRequests", `Too many survey requests from this address. Try again in ${wait} seconds.`, undefined, undefined, wait);
    }
    await next();
  });
}

/** RespondentSurvey Start and Get. */
function registerSurveyStartAndGet(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/s/api/{link}/start",
      tags: ["Respondent survey"],
      operationId: "RespondentSurvey_Start",
      summary: "Start (or resume) taking a survey",
      description:
        "A new respondent session on a Live survey run, with the test options this respondent will see. A panel respondent id answers once: the same id resumes its own session. A sample supplier's respondent sends the entry link's query string as received (`entryQuery`: `supplier={id}&{entryParameter}={rid}[&{signatureParameter}=...]`); with the supplier's secret the signature parameter, last, must carry the supplier's signature (its algorithm and encoding) of what its scheme signs: `{PUBLIC_URL}/s/{link}?` + the query before it (signedPart url, the default: hex HMAC-SHA256 as `sig`) or that query alone (query), else 403. A rid enters a run once: the same rid resumes its own session while it is in progress; after it has finished, its entry is answered as a duplicate (status Removed, no end link, nothing stored). With the run's test key (`test={key}` before the rid: the run's test link) the entry is a test one: the same survey and end link, counted nowhere (no complete, quota, outcome or reconciliation row); a wrong key is a 403. On a closed run a supplier's new respondent gets the over-quota end with its (signed) redirect; no session is stored, the outcome is (reconciliation, callback); anyone else gets 409. Duplicates are also judged on the server: the entry's address (the connection's, never a forwarded header) and user agent are kept only as a keyed hash under the run's own key, and a complete whose hash equals a complete's of the run is excluded as a duplicate (an address alone never is).",
      request: {
        params: Link,
        body: {
          required: false,
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  panelRespondentId: z.string().min(1).max(200).optional(),
                  entryQuery: z.string().min(1).max(2000).optional().describe("A supplier's entry: the page's query string without the leading ?"),
                  deviceFingerprint: z.string().min(8).max(128).optional().describe("A hash of the device's traits (duplicates within a run are flagged)"),
                })
                .openapi("RespondentStart"),
            },
          },
        },
      },
      responses: { ...ok, ...refusals, 403: errors[403] },
    },
    async (c) => {
      const { link } = c.req.valid("param");
      const body = (await c.req.json().catch(() => ({}))) as { panelRespondentId?: unknown; entryQuery?: unknown; deviceFingerprint?: unknown };
      const text = (v: unknown, max: number) => (typeof v === "string" && v ? v.slice(0, max) : null);
      const view = await sentBack(
        deps,
        await respondents.startSession(db, link, text(body.panelRespondentId, 200), {
          entryQuery: text(body.entryQuery, 2000),
          deviceFingerprint: text(body.deviceFingerprint, 128),
          // The peer address as the server adapter saw it (never a forwarded header a client can set).
          address: deps.clientIp?.(c.req.raw) ?? null,
          userAgent: text(c.req.header("user-agent"), 1000),
          publicUrl: deps.publicUrl ?? new URL(c.req.url).origin,
        }),
      );
      return c.json(await present(view, signer(deps, c)), 200);
    },
  );
  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/s/api/{link}/{respondentId}",
      tags: ["Respondent survey"],
      operationId: "RespondentSurvey_Get",
      summary: "Where a respondent is in a survey",
      description: "The page to answer next (after a reload), or the end the respondent reached.",
      request: { params: LinkAndRespondent },
      responses: { ...ok, ...refusals },
    },
    async (c) => {
      const { link, respondentId } = c.req.valid("param");
      return c.json(await present(await respondents.getSession(db, link, respondentId), signer(deps, c)), 200);
    },
  );
}

/** RespondentSurvey Answer, and the survey page with its assets. */
function registerSurveyAnswerAndPage(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/s/api/{link}/{respondentId}/answers",
      tags: ["Respondent survey"],
      operationId: "RespondentSurvey_Answer",
      summary: "Answer the current page",
      description:
        "The answers of the current page by question key: an option id (single, dropdown), option ids (multiple), text, or a price. Invalid answers are refused (400, with each failing question in `errors`) and nothing is saved; prices must rise from too cheap to too expensive. Then the respondent goes on, or ends: screened out by a target, over a full quota, failing the attention check, or complete.",
      request: {
        params: LinkAndRespondent,
        body: {
          required: true,
          content: { "application/json": { schema: z.strictObject({ pageId: z.string().min(1).max(100), answers: z.record(z.string(), z.unknown()) }).openapi("RespondentAnswers") } },
        },
      },
      responses: { ...ok, ...refusals },
    },
    async (c) => {
      const { link, respondentId } = c.req.valid("param");
      const b = c.req.valid("json");
      return c.json(await present(await sentBack(deps, await respondents.submitPage(db, link, respondentId, b.pageId, b.answers)), signer(deps, c)), 200);
    },
  );

  app.get("/s/assets/survey.js", (c) => c.body(SURVEY_PAGE_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=300" }));
  app.get("/s/assets/survey.css", (c) => c.body(SURVEY_PAGE_CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=300" }));
  app.get("/s/:link", (c) => {
    const link = c.req.param("link");
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(link)) return c.text("This survey link is not valid", 404);
    return c.html(SURVEY_PAGE_HTML);
  });
}

/**
 * A supplier's respondent sent back (an end link): its callback, if the supplier takes one, is sent
 * soon by the job, after this request's transaction committed. A failed nudge loses nothing (the
 * job also runs every minute).
 */
async function sentBack(deps: AppDeps, v: svc.RespondentView): Promise<svc.RespondentView> {
  if (v.redirectUrl !== null && deps.queue) await nudgeSupplierCallbacks(deps.queue).catch(() => {});
  return v;
}
