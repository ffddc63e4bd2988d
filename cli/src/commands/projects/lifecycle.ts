// The one-call project verbs: update (PATCH), clone (Duplicate), submit, unsubmit, delete (DELETE),
// undelete; and the staff's approve and decline (admin).
import { idArg } from "../../args.ts";
import { usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "../../../../contracts/labels.ts";
import type { Schemas } from "../../../../contracts/client.ts";

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

export async function runLifecycle(action: "Submit" | "Unsubmit" | "Approve", id: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const key = idArg(id);
  const path = `/api/v1/Projects({key})/${action}` as "/api/v1/Projects({key})/Submit";
  const r = ok(await api.client.POST(path, { params: { path: { key } }, body: {} }), `${action.toLowerCase()} project ${id}`);
  said(o, r, moved(r));
}

export async function runDecline(id: string, o: GlobalOptions & { reason?: string }): Promise<void> {
  if (!o.reason) throw usageError("--reason is required: the submitter is told why");
  const api = signedIn(o);
  const r = ok(await api.client.POST("/api/v1/Projects({key})/Decline", { params: { path: { key: idArg(id) } }, body: { reason: o.reason } }), `decline project ${id}`);
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
  const body: Schemas["ProjectsUpdate"] = {};
  if (o.name !== undefined) body.projectName = o.name;
  if (o.note !== undefined) body.researchNote = o.note === "" ? null : o.note;
  if (o.launchDate !== undefined) {
    if (o.launchDate !== "" && !/^\d{4}-\d{2}-\d{2}$/.test(o.launchDate)) throw usageError(`--launch-date: expected YYYY-MM-DD, got '${o.launchDate}'`);
    body.launchDate = o.launchDate === "" ? null : o.launchDate;
  }
  if (o.brand !== undefined) Object.assign(body, o.brand === "" ? { isBranded: false, brandName: null } : { isBranded: true, brandName: o.brand });
  if (o.category !== undefined) body.categoryId = o.category === "" ? null : Number(idArg(o.category, "category id"));
  if (Object.keys(body).length === 0) throw usageError("nothing to change: give --name, --note, --launch-date, --brand or --category");
  const api = signedIn(o);
  const key = idArg(id);
  const before = ok(await api.client.GET("/api/v1/Projects({key})", { params: { path: { key } } }), `reading project ${id}`);
  // SPEC 5: renaming to the same name is skipped.
  if (body.projectName !== undefined && body.projectName === before.projectName) delete body.projectName;
  if (Object.keys(body).length === 0) return said(o, before, `Project ${id}: nothing changed`);
  const p = ok(await api.client.PATCH("/api/v1/Projects({key})", { params: { path: { key } }, body }), `updating project ${id}`);
  said(o, p, body.projectName !== undefined ? `Project name has been updated to '${p.projectName}'` : `Project ${id} updated (${Object.keys(body).join(", ")})`);
}

export async function runClone(id: string, o: GlobalOptions & { name?: string }): Promise<void> {
  const api = signedIn(o);
  const r = ok(
    await api.client.POST("/api/v1/Projects({key})/Duplicate", { params: { path: { key: idArg(id) } }, body: o.name ? { projectName: o.name } : {} }),
    `cloning project ${id}`,
  );
  // SPEC 8's toast text.
  said(o, r, `Project '${r.projectName}' has been cloned. (id ${r.id})`);
}

export async function runDelete(id: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const key = idArg(id);
  ok(await api.client.DELETE("/api/v1/Projects({key})", { params: { path: { key } } }), `deleting project ${id}`);
  said(o, { id: Number(key), deleted: true }, `Project ${id} deleted (undo with \`ideally projects undelete ${id}\`)`);
}

export async function runUndelete(id: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const p = ok(await api.client.POST("/api/v1/Projects({key})/Undelete", { params: { path: { key: idArg(id) } } }), `restoring project ${id}`);
  said(o, p, `Project ${p.id} '${p.projectName}' restored`);
}
