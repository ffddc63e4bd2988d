// `ideally admin approve ID [--to STATUS]`: Approve, once or step by step up to a status.
import type { Schemas } from "@ideally/contracts";
import { idArg } from "../../args.ts";
import { apiError, usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "@ideally/contracts/labels";

export async function runApprove(id: string, o: GlobalOptions & { to?: string }): Promise<void> {
  const key = idArg(id);
  const to = o.to === undefined ? undefined : Number(o.to);
  if (to !== undefined && ![100, 200, 300].includes(to)) throw usageError(`--to: expected 100, 200 or 300, got '${o.to}'`);
  // Staff need no client (their session usually has none); a team Admin acts for the team.
  const api = signedIn(o);
  const steps: Schemas["LifecycleResult"][] = [];
  // Three steps at most: 50 -> 100 -> 200 -> 300.
  for (let i = 0; i < 3; i++) {
    const r = ok(await api.client.POST("/api/v1/Projects({key})/Approve", { params: { path: { key } }, body: {} }), `approve project ${id}`);
    steps.push(r);
    if (!o.json) process.stdout.write(`Project ${r.projectId} '${r.projectName}': ${r.previousStatusCode} ${statusName(r.previousStatusCode)} -> ${r.statusCode} ${statusName(r.statusCode)}\n`);
    if (to === undefined || r.statusCode >= to) break;
    if (!r.allowedActions.includes("Approve")) throw apiError(`project ${id} stopped at ${r.statusCode} ${statusName(r.statusCode)}: Approve is not allowed there`);
  }
  if (o.json) printJson(steps);
}
