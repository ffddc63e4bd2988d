// The one-call project verbs: update (PATCH), clone (Duplicate), submit, unsubmit, delete (DELETE),
// undelete; and the staff's approve and decline (admin).
import { idArg, isDate } from "../../args.ts";
import { apiError, usageError } from "../../errors.ts";
import { bold, printJson } from "../../output.ts";
import { fillProse, terminalWidth } from "../../help-fit.ts";
import { confirm, unattended } from "../../prompt.ts";
import { ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";
import { costText } from "./create.ts";
import { statusName } from "@ideally/contracts/labels";
import type { Schemas } from "@ideally/contracts";

type Lifecycle = Schemas["LifecycleResult"];

function said(o: GlobalOptions, json: unknown, text: string): void {
  if (o.json) printJson(json);
  else process.stdout.write(`${text}\n`);
}

const moved = (r: Lifecycle) =>
  `Project ${r.projectId} '${r.projectName}': ${r.previousStatusCode} ${statusName(r.previousStatusCode)} -> ${r.statusCode} ${statusName(r.statusCode)}` +
  (r.charged ? `; charged ${r.charged} credits` : "") +
  (r.refunded ? `; refunded ${r.refunded} credits` : "") +
  (r.balanceAfter !== undefined ? ` (balance ${r.balanceAfter})` : "");

export interface ConfirmOptions extends GlobalOptions {
  yes?: boolean;
}

/** A project's name and status for a confirmation question. */
async function describe(api: Api, key: string): Promise<string> {
  const p = ok(await api.client.GET("/api/v1/Projects({key})", { params: { path: { key }, query: { $select: "id,projectName,statusCode" } } }), `reading project ${key}`);
  return `project ${key} '${p.projectName}' (${statusName(p.statusCode)})`;
}

/** A design the panel cannot fill, in the API's words (ReadinessCheck's `shortfall`), fitted to the terminal. */
export function shortfallText(s: Schemas["ShortfallStatement"]): string {
  const w = terminalWidth();
  return [bold("Not feasible as designed:"), ...s.markets.map((m) => fillProse(m.text, w, "  - ", "    ")), fillProse(s.message, w, "  ")].join("\n");
}

/** The markets of an accepted shortfall in figures: "New Zealand 3,060 of 5,000". */
const shortfallFigures = (s: Schemas["ShortfallStatement"]) => s.markets.map((m) => `${m.regionName} ${m.feasibleCompletes.toLocaleString("en")} of ${m.sampleSize.toLocaleString("en")}`).join(", ");

/**
 * Submit charges the project's cost: the cost table (CreditCostNow) comes first, then the question.
 * A design the panel cannot fill (ReadinessCheck's shortfall) is printed first and submitted only
 * with --accept-shortfall (the API refuses it with 409 otherwise, nothing charged).
 */
export async function runSubmit(id: string, o: ConfirmOptions & { acceptShortfall?: boolean }): Promise<void> {
  const key = idArg(id);
  unattended(o, `submit project ${id}`);
  const api = signedIn(o);
  if (!o.yes || !o.json) {
    const what = await describe(api, key);
    const check = ok(await api.client.GET("/api/v1/Projects({key})/ReadinessCheck", { params: { path: { key } } }), `checking project ${id}`);
    if (check.shortfall && !o.json) process.stdout.write(`${shortfallText(check.shortfall)}\n`);
    if (check.shortfall && !o.acceptShortfall) {
      throw apiError(`project ${id} was not submitted: the panel cannot deliver the completes ordered (${shortfallFigures(check.shortfall)}); add --accept-shortfall to submit it anyway`);
    }
    const cost = ok(await api.client.GET("/api/v1/Projects({key})/CreditCostNow", { params: { path: { key } } }), `reading the cost of project ${id}`);
    if (!o.json) process.stdout.write(`${costText(cost, false)}\n`);
    await confirm(o, `Submit ${what} for ${cost.total} credits${check.shortfall ? ", accepting the shortfall" : ""}?`, `submit project ${id}`);
  }
  const body = o.acceptShortfall ? { acceptShortfall: true } : {};
  const r = ok(await api.client.POST("/api/v1/Projects({key})/Submit", { params: { path: { key } }, body }), `submit project ${id}`);
  // The statement was printed before the question; the answer's is in --json.
  const w = terminalWidth();
  said(o, r, r.shortfall ? `${fillProse(moved(r), w)}\n${fillProse(`Shortfall accepted: ${shortfallFigures(r.shortfall)} completes can be delivered; refunded as stated above.`, w)}` : moved(r));
}

export async function runUnsubmit(id: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const key = idArg(id);
  const r = ok(await api.client.POST("/api/v1/Projects({key})/Unsubmit", { params: { path: { key } }, body: {} }), `unsubmit project ${id}`);
  said(o, r, moved(r));
}

export async function runDecline(id: string, o: ConfirmOptions & { reason?: string }): Promise<void> {
  if (!o.reason) throw usageError("--reason is required: the submitter is told why");
  const key = idArg(id);
  unattended(o, `decline project ${id}`);
  const api = signedIn(o);
  if (!o.yes) await confirm(o, `Decline ${await describe(api, key)} back to Draft (its charge is refunded)?`, `decline project ${id}`);
  const r = ok(await api.client.POST("/api/v1/Projects({key})/Decline", { params: { path: { key } }, body: { reason: o.reason } }), `decline project ${id}`);
  said(o, r, moved(r));
}

export interface UpdateOptions extends GlobalOptions {
  name?: string;
  note?: string;
  launchDate?: string;
  brand?: string;
  category?: string;
}

export async function runUpdate(id: string, o: UpdateOptions): Promise<void> {
  const key = idArg(id);
  const body: Schemas["ProjectsUpdate"] = {};
  // The contract's bounds: projectName and brandName at most 200 characters.
  const name200 = (v: string, flag: string) => {
    if (v.length > 200) throw usageError(`${flag}: at most 200 characters, got ${v.length}`);
    return v;
  };
  if (o.name !== undefined) {
    if (o.name.trim() === "") throw usageError("--name: the name cannot be empty");
    body.projectName = name200(o.name, "--name");
  }
  if (o.note !== undefined) body.researchNote = o.note === "" ? null : o.note;
  if (o.launchDate !== undefined) {
    if (o.launchDate !== "" && !isDate(o.launchDate)) throw usageError(`--launch-date: expected a date YYYY-MM-DD, got '${o.launchDate}'`);
    body.launchDate = o.launchDate === "" ? null : o.launchDate;
  }
  if (o.brand !== undefined) Object.assign(body, o.brand === "" ? { isBranded: false, brandName: null } : { isBranded: true, brandName: name200(o.brand, "--brand") });
  if (o.category !== undefined) body.categoryId = o.category === "" ? null : Number(idArg(o.category, "category id"));
  if (Object.keys(body).length === 0) throw usageError("nothing to change: give --name, --note, --launch-date, --brand or --category");
  const api = signedIn(o);
  const before = ok(await api.client.GET("/api/v1/Projects({key})", { params: { path: { key } } }), `reading project ${id}`);
  // SPEC 5: renaming to the same name is skipped.
  if (body.projectName !== undefined && body.projectName === before.projectName) delete body.projectName;
  if (Object.keys(body).length === 0) return said(o, before, `Project ${id}: nothing changed`);
  const p = ok(await api.client.PATCH("/api/v1/Projects({key})", { params: { path: { key } }, body }), `updating project ${id}`);
  said(o, p, body.projectName !== undefined ? `Project name has been updated to '${p.projectName}'` : `Project ${id} updated (${Object.keys(body).join(", ")})`);
}

export async function runClone(id: string, o: GlobalOptions & { name?: string }): Promise<void> {
  const api = signedIn(o);
  const r = ok(await api.client.POST("/api/v1/Projects({key})/Duplicate", { params: { path: { key: idArg(id) } }, body: o.name ? { projectName: o.name } : {} }), `cloning project ${id}`);
  // SPEC 8's toast text.
  said(o, r, `Project '${r.projectName}' has been cloned. (id ${r.id})`);
}

export async function runDelete(id: string, o: ConfirmOptions): Promise<void> {
  const key = idArg(id);
  unattended(o, `delete project ${id}`);
  const api = signedIn(o);
  if (!o.yes) await confirm(o, `Delete ${await describe(api, key)}? (undelete restores it)`, `delete project ${id}`);
  ok(await api.client.DELETE("/api/v1/Projects({key})", { params: { path: { key } } }), `deleting project ${id}`);
  said(o, { id: Number(key), deleted: true }, `Project ${id} deleted (undo with \`ideally projects undelete ${id}\`)`);
}

export async function runUndelete(id: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const p = ok(await api.client.POST("/api/v1/Projects({key})/Undelete", { params: { path: { key: idArg(id) } } }), `restoring project ${id}`);
  said(o, p, `Project ${p.id} '${p.projectName}' restored`);
}
