// A loopback fake of Dynata's Samplify API, built from its public reference (decision records 0084,
// 0127): auth /token/password; POST /projects, /projects/{p}/lineItems, /projects/{p}/lineItems/{l},
// /projects/{p}/buy, /projects/{p}/lineItems/{l}/{launch|pause|close}; GET /projects/{p}/feasibility;
// every answer {data, status}. A line item is checked against the Demand API's schema (Dynata's
// python-demandapi-client, dynatademand/schemas/request/body/create_line_item.json): the required
// fields, `targets` [{type COMPLETE, count}], and a `quotaPlan` whose filters and quota cells name
// attributes and options Dynata has (the reference's GET /attributes example: "11" Gender with
// options "1" and "2"; "13" Age, ranges matching its format). A refused line item is a 400 naming
// the field, as Samplify answers. Line items are answered with `endLinks` shaped as the reference's
// examples (rst=1 complete with med={calculatedSecurityCode}, rst=2 screenout, rst=3 overquota,
// securityKey1, securityKey2, securityLevel MEDIUM). Everything received is kept for the tests.
export type LineItem = Record<string, unknown> & { extLineItemId: string; state: string };
export interface FakeProject {
  extProjectId: string;
  title: string;
  state: string;
  lineItems: LineItem[];
}

/** The attributes the fake knows, as the reference's GET /attributes example has them. */
const GENDER_OPTIONS = new Set(["1", "2"]);
const AGE_FORMAT = /^(1[8]-1[9]|1[89]-[2-9][0-9]|[2-9][0-9]-[2-9][0-9])$/;

export const SECURITY_KEY_1 = "35040";
export const SECURITY_KEY_2 = "42614";

function nodeProblem(n: unknown, where: string): string | null {
  if (typeof n !== "object" || n === null) return `${where} must be an object`;
  const { attributeId, options } = n as { attributeId?: unknown; options?: unknown };
  if (typeof attributeId !== "string") return `${where}.attributeId is required`;
  if (!Array.isArray(options) || !options.length || options.some((o) => typeof o !== "string")) return `${where}.options must be a non-empty list of option ids`;
  if (new Set(options).size !== options.length) return `${where}.options must be unique`;
  if (attributeId === "11") return options.every((o) => GENDER_OPTIONS.has(o as string)) ? null : `${where}: attribute 11 (Gender) has options 1 and 2`;
  if (attributeId === "13") return options.every((o) => AGE_FORMAT.test(o as string)) ? null : `${where}: attribute 13 (Age) takes ranges like 18-24`;
  return `${where}: unknown attribute ${attributeId}`;
}

function quotaPlanProblem(p: unknown): string | null {
  if (p === undefined) return null;
  if (typeof p !== "object" || p === null) return "quotaPlan must be an object";
  const { filters = [], quotaGroups = [] } = p as { filters?: unknown; quotaGroups?: unknown };
  if (!Array.isArray(filters) || !Array.isArray(quotaGroups)) return "quotaPlan.filters and quotaPlan.quotaGroups are lists";
  for (const [i, f] of filters.entries()) {
    const problem = nodeProblem(f, `quotaPlan.filters[${i}]`);
    if (problem) return problem;
    const op = (f as { operator?: unknown }).operator;
    if (op !== undefined && op !== "include" && op !== "exclude") return `quotaPlan.filters[${i}].operator is include or exclude`;
  }
  for (const [i, g] of quotaGroups.entries()) {
    const { name, quotaCells } = g as { name?: unknown; quotaCells?: unknown };
    if (typeof name !== "string" || !name) return `quotaPlan.quotaGroups[${i}].name is required`;
    if (!Array.isArray(quotaCells) || !quotaCells.length) return `quotaPlan.quotaGroups[${i}].quotaCells is required`;
    for (const [j, c] of quotaCells.entries()) {
      const { quotaNodes, count } = c as { quotaNodes?: unknown; count?: unknown };
      if (!Array.isArray(quotaNodes) || !quotaNodes.length) return `quotaPlan.quotaGroups[${i}].quotaCells[${j}].quotaNodes is required`;
      for (const [k, n] of quotaNodes.entries()) {
        const problem = nodeProblem(n, `quotaPlan.quotaGroups[${i}].quotaCells[${j}].quotaNodes[${k}]`);
        if (problem) return problem;
      }
      if (!Number.isInteger(count) || (count as number) < 0) return `quotaPlan.quotaGroups[${i}].quotaCells[${j}].count must be a whole number`;
    }
  }
  return null;
}

/** What the reference requires of a line item, with its types; null when it holds. */
export function lineItemProblems(l: Record<string, unknown>): string | null {
  for (const k of ["extLineItemId", "title", "countryISOCode", "languageISOCode"]) if (typeof l[k] !== "string" || !l[k]) return `${k} is required`;
  for (const k of ["indicativeIncidence", "daysInField", "lengthOfInterview"]) if (typeof l[k] !== "number" || !((l[k] as number) > 0)) return `${k} must be a positive number`;
  if (!/^[A-Z]{2}$/.test(l.countryISOCode as string)) return "countryISOCode must be ISO 3166 alpha-2";
  if (!/^[a-z]{2}$/.test(l.languageISOCode as string)) return "languageISOCode must be ISO 639-1";
  if ((l.indicativeIncidence as number) > 100) return "indicativeIncidence is a percentage";
  const targets = l.targets as { type?: unknown; count?: unknown }[] | undefined;
  if (!Array.isArray(targets) || !targets.length) return "targets is required";
  if (targets.some((t) => t.type !== "COMPLETE" || !Number.isInteger(t.count) || (t.count as number) <= 0)) return "targets: each is {type: COMPLETE, count > 0}";
  for (const k of ["surveyURL", "surveyTestURL"]) if (l[k] !== undefined && typeof l[k] !== "string") return `${k} must be a string`;
  return quotaPlanProblem(l.quotaPlan);
}

export interface SamplifyFake {
  port: number;
  projects: Map<string, FakeProject>;
  calls: string[];
  /** Line items as received (each create or update), in order. */
  received: Record<string, unknown>[];
  signIns: () => number;
  /** Makes the token the client holds stale (the next call is answered 401 once). */
  expireToken: () => void;
  stop: () => void;
}

export function startSamplifyFake(): SamplifyFake {
  const projects = new Map<string, FakeProject>();
  const calls: string[] = [];
  const received: Record<string, unknown>[] = [];
  let signIns = 0;
  const ok = (data: unknown, status = 200) => Response.json({ data, status: { message: "success", errors: [] } }, { status });
  const fail = (status: number, message: string) => Response.json({ data: null, status: { message: "fail", errors: [{ code: String(status), message }] } }, { status });
  let origin = "";
  const withEndLinks = (l: Record<string, unknown>): LineItem => ({
    ...l,
    extLineItemId: String(l.extLineItemId),
    state: "PROVISIONED",
    endLinks: {
      complete: `${origin}/respondent/exit?rst=1&psid={psid}&med={calculatedSecurityCode}`,
      screenout: `${origin}/respondent/exit?rst=2&psid={psid}`,
      overquota: `${origin}/respondent/exit?rst=3&psid={psid}`,
      securityKey1: SECURITY_KEY_1,
      securityKey2: SECURITY_KEY_2,
      securityLevel: "MEDIUM",
    },
  });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      calls.push(`${req.method} ${path}`);
      if (path === "/auth/v1/token/password" && req.method === "POST") {
        const b = (await req.json()) as { clientId?: string; username?: string; password?: string };
        if (b.clientId !== "cid" || b.username !== "ideally" || b.password !== "pw") return Response.json({ message: "bad credentials" }, { status: 401 });
        signIns++;
        return Response.json({ accessToken: `tok-${signIns}`, expiresIn: 3600, refreshToken: "r", refreshExpiresIn: 7200 });
      }
      if (req.headers.get("authorization") !== `Bearer tok-${signIns}`) return fail(401, "unauthorised");
      const m = path.match(/^\/sample\/v1\/projects(?:\/([^/]+))?(?:\/(lineItems|buy|close|feasibility))?(?:\/([^/]+))?(?:\/(launch|pause|close))?$/);
      if (!m) return fail(404, "no such route");
      const [, pid, sub, lid, action] = m;
      if (!pid && req.method === "POST") {
        const b = (await req.json()) as { extProjectId?: string; title?: string; notificationEmails?: string[]; category?: { surveyTopic?: string[] }; lineItems?: Record<string, unknown>[] };
        if (!b.extProjectId || !b.title || !b.notificationEmails?.length || !b.category?.surveyTopic?.length || !b.lineItems?.length)
          return fail(400, "extProjectId, title, notificationEmails, category and lineItems are required");
        for (const l of b.lineItems) {
          const p = lineItemProblems(l);
          if (p) return fail(400, p);
        }
        if (projects.has(b.extProjectId)) return fail(400, "project exists");
        received.push(...b.lineItems);
        const p = { extProjectId: b.extProjectId, title: b.title, state: "PROVISIONED", lineItems: b.lineItems.map(withEndLinks) };
        projects.set(b.extProjectId, p);
        return ok(p, 201);
      }
      const p = projects.get(decodeURIComponent(pid!));
      if (!p) return fail(404, "no such project");
      if (sub === "lineItems" && !lid && req.method === "POST") {
        const l = (await req.json()) as Record<string, unknown>;
        const problem = lineItemProblems(l);
        if (problem) return fail(400, problem);
        received.push(l);
        const item = withEndLinks(l);
        p.lineItems.push(item);
        return ok(item, 201);
      }
      if (sub === "lineItems" && lid && !action && req.method === "POST") {
        const item = p.lineItems.find((x) => x.extLineItemId === decodeURIComponent(lid));
        if (!item) return fail(404, "no such line item");
        const l = (await req.json()) as Record<string, unknown>;
        const problem = lineItemProblems({ ...item, ...l });
        if (problem) return fail(400, problem);
        received.push(l);
        Object.assign(item, l);
        return ok(item);
      }
      if (sub === "lineItems" && lid && action) {
        const item = p.lineItems.find((x) => x.extLineItemId === decodeURIComponent(lid));
        if (!item) return fail(404, "no such line item");
        if (action === "launch" && item.state !== "AWAITING_APPROVAL" && item.state !== "PAUSED") return fail(400, `cannot launch a ${item.state} line item: buy it first`);
        item.state = { launch: "LAUNCHED", pause: "PAUSED", close: "CLOSED" }[action]!;
        return ok(item);
      }
      if (sub === "buy") {
        const list = (await req.json()) as { extLineItemId: string; surveyURL: string; surveyTestURL: string }[];
        if (!Array.isArray(list) || list.some((x) => !x.surveyURL || !x.surveyTestURL)) return fail(400, "surveyURL and surveyTestURL are required");
        return ok(
          list.map((x) => {
            const item = p.lineItems.find((l) => l.extLineItemId === x.extLineItemId)!;
            item.state = "AWAITING_APPROVAL";
            return { extLineItemId: x.extLineItemId, state: item.state };
          }),
        );
      }
      if (sub === "feasibility" && req.method === "GET") {
        return ok(
          p.lineItems.map((l) => ({
            extLineItemId: l.extLineItemId,
            feasibility: { status: "READY", costPerInterview: 2.5, currency: "USD", feasible: (l.requiredCompletes as number) <= 1000, totalCount: 1000, valueCounts: [] },
          })),
        );
      }
      return fail(405, "not allowed");
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  return {
    port: server.port!,
    projects,
    calls,
    received,
    signIns: () => signIns,
    expireToken: () => {
      signIns++;
    },
    stop: () => server.stop(true),
  };
}

/** Samplify configured to the fake (the tests' environment). */
export function configureSamplify(port: number): void {
  process.env.SAMPLIFY_CLIENT_ID = "cid";
  process.env.SAMPLIFY_USERNAME = "ideally";
  process.env.SAMPLIFY_PASSWORD = "pw";
  process.env.SAMPLIFY_BASE_URL = `http://127.0.0.1:${port}/sample/v1`;
  process.env.SAMPLIFY_AUTH_URL = `http://127.0.0.1:${port}/auth/v1`;
}

export function unconfigureSamplify(): void {
  for (const k of ["SAMPLIFY_CLIENT_ID", "SAMPLIFY_USERNAME", "SAMPLIFY_PASSWORD", "SAMPLIFY_BASE_URL", "SAMPLIFY_AUTH_URL"]) delete process.env[k];
}
