// The project status machine (SPEC 4): every lifecycle action against every status, as data. The
// services consult it before they act (a missing cell is a 409 naming the current status and the
// actions allowed from it), and docs/project-lifecycle.md carries the table rendered from it
// (tests/api/lifecycle.test.ts fails when the two differ; `bun run
// api/src/domains/lifecycle/transitions.ts` rewrites the document's table).

export const STATUSES = [
  { code: 0, name: "Draft", codeName: "Draft" },
  { code: 50, name: "Awaiting Approval", codeName: "AwaitingApproval" },
  { code: 100, name: "Submitted", codeName: "Submitted" },
  { code: 200, name: "Reviewing Questions", codeName: "ReviewingQuestions" },
  { code: 300, name: "Awaiting Survey", codeName: "AwaitingSurvey" },
  { code: 400, name: "Processing results", codeName: "WaitingOnResponses" },
  { code: 800, name: "Completed Wave", codeName: "CompletedWave" },
  { code: 900, name: "Complete", codeName: "Complete" },
  { code: 950, name: "Demo", codeName: "Demo" },
] as const;

export type StatusCode = (typeof STATUSES)[number]["code"];
export const STATUS_CODES: readonly StatusCode[] = STATUSES.map((s) => s.code);

export const ACTIONS = [
  "Submit",
  "Unsubmit",
  "Approve",
  "SuperApprove",
  "Decline",
  "CloseProjectSurvey",
  "StopProjectScheduling",
  "MarkAsDemo",
  "Move",
  "Duplicate",
  "AdminEdit",
  "UpdateProjectOwner",
  "UpdateGroupTags",
  "IncidenceEstimate",
  "GenerateQuestionIr",
  "ResyncScheduledProject",
  "RemoveFromSurveyRun",
] as const;

export type Action = (typeof ACTIONS)[number];

/** What an action does from one status. */
export interface Cell {
  /** The statuses the project can end in; the current one when it stays. Several: `when` decides. */
  to: readonly StatusCode[];
  /** At this status only provider staff may take the step (members get 403). */
  staffOnly?: true;
  /** What decides between several targets, or what else happens (for the document). */
  when?: string;
}

/** null: refused from that status (409). */
export type Row = Readonly<Record<StatusCode, Cell | null>>;

const no = null;
const stays = (s: StatusCode, when?: string): Cell => (when ? { to: [s], when } : { to: [s] });
const row = (f: (s: StatusCode) => Cell | null): Row => Object.fromEntries(STATUS_CODES.map((s) => [s, f(s)])) as Row;

/** Before fielding: the statuses SuperApprove skips and IncidenceEstimate may still change. */
const PRE_SURVEY: readonly StatusCode[] = [0, 50, 100, 200];

export const TRANSITIONS: Readonly<Record<Action, Row>> = {
  Submit: row((s) =>
    s === 0
      ? {
          to: [50, 100],
          when: "50 when the client (or a client above it) requires approval or the submitter is not an Admin of the team; 100 for an Admin or staff otherwise. Charges the first wave (PendingSurveyRun) under the ledger lock. An incomplete test (the readiness check: test options, markets, currencies) or a design whose quotas no run can meet is refused first (400 naming each problem, nothing charged; docs/decisions.md); so is SuperApprove from Draft. Then a market whose completes exceed what the panel can deliver in a field period, or a quota cell whose need exceeds what it can get, is refused with 409 stating each market's and cell's deliverable completes (nothing charged), unless the body has acceptShortfall true; SuperApprove from Draft goes ahead. Either way the answer's shortfall states the field period and the refund rule",
        }
      : no,
  ),
  Unsubmit: row((s) => (s === 50 || s === 100 ? { to: [0], when: "refunds the pending charge of the unrun waves" } : no)),
  Approve: row((s) =>
    s === 50
      ? { to: [100], when: "an Admin of the team or staff; notifies the submitter (SurveyApproved)" }
      : s === 100
        ? { to: [200], staffOnly: true, when: "staff take the questionnaire into review" }
        : s === 200
          ? { to: [300], staffOnly: true, when: "staff approve the questionnaire" }
          : no,
  ),
  SuperApprove: row((s) =>
    PRE_SURVEY.includes(s) ? { to: [300], when: s === 0 ? "a super admin submits and approves at once: charges the first wave like Submit" : "a super admin skips the remaining approvals" } : no,
  ),
  Decline: row((s) =>
    s === 50
      ? { to: [0], when: "an Admin of the team or staff, with a reason; refunds the pending charge; notifies the submitter (SurveyApprovalDeclined)" }
      : s === 100 || s === 200
        ? { to: [0], staffOnly: true, when: "staff, with a reason; refunds the pending charge; notifies the submitter" }
        : no,
  ),
  CloseProjectSurvey: row((s) =>
    s === 400 || s === 800 ? { to: [800, 900], when: "800 while later waves remain scheduled, 900 otherwise; settles the run's pending charges (30 -> 40); ResultsReady" } : no,
  ),
  StopProjectScheduling: row((s) =>
    s === 300
      ? { to: [0], when: "nothing has run: every scheduled wave is cancelled and refunded" }
      : s === 400
        ? stays(400, "the running wave finishes; later waves are cancelled and refunded")
        : s === 800
          ? { to: [900], when: "later waves are cancelled and refunded; the project is complete" }
          : no,
  ),
  MarkAsDemo: row((s) => (s === 800 || s === 900 ? { to: [950] } : no)),
  Move: row((s) => (s === 0 ? stays(0, "to another team of the same enterprise; refused for a project with ledger rows") : no)),
  Duplicate: row((s) => stays(s, "the copy is a new Draft")),
  AdminEdit: row(() => ({ to: STATUS_CODES, when: "staff set any field, the status included; audited; the ledger is not touched" })),
  UpdateProjectOwner: row((s) => stays(s)),
  UpdateGroupTags: row((s) => stays(s)),
  IncidenceEstimate: row((s) => (PRE_SURVEY.includes(s) || s === 300 ? stays(s) : no)),
  GenerateQuestionIr: row((s) => stays(s)),
  ResyncScheduledProject: row((s) =>
    s === 100 || s === 200 || s === 300 || s === 400 || s === 800 ? stays(s, "unrun waves are re-dated from the schedule settings and re-priced at today's cost") : no,
  ),
  RemoveFromSurveyRun: row((s) => (s === 300 || s === 800 ? stays(s) : s === 400 ? { to: [300, 400], when: "300 when no other run carries the project, else it stays" } : no)),
};

export function statusName(code: number): string {
  return STATUSES.find((s) => s.code === code)?.name ?? `status ${code}`;
}

export function isStatusCode(code: number): code is StatusCode {
  return (STATUS_CODES as readonly number[]).includes(code);
}

export function cellFor(action: Action, status: number): Cell | null {
  return isStatusCode(status) ? TRANSITIONS[action][status] : null;
}

/** The actions the table allows from a status, in the table's order. */
export function allowedActions(status: number): Action[] {
  return ACTIONS.filter((a) => cellFor(a, status) !== null);
}

/** The 409 message for a refused action: names the current status and what is allowed from it. */
export function refusalMessage(action: Action, projectId: number, status: number): string {
  const allowed = allowedActions(status);
  return `Cannot ${action} project ${projectId}: it is ${status} ${statusName(status)}. ` + `Allowed from ${statusName(status)}: ${allowed.length ? allowed.join(", ") : "none"}.`;
}

// ---- the document ----

function cellText(from: StatusCode, c: Cell | null): string {
  if (!c) return "—";
  const target = c.to.length === 1 && c.to[0] === from ? "stays" : c.to.length === STATUS_CODES.length ? "any" : `→ ${c.to.join(" or ")}`;
  return c.staffOnly ? `${target} (staff)` : target;
}

export const TABLE_BEGIN = "<!-- BEGIN transition table: generated from api/src/domains/lifecycle/transitions.ts -->";
export const TABLE_END = "<!-- END transition table -->";

/** The transition table and its conditions, as docs/project-lifecycle.md carries them. */
export function renderTransitionTable(): string {
  const head = `| action | ${STATUSES.map((s) => `${s.code} ${s.name}`).join(" | ")} |`;
  const sep = `| --- | ${STATUSES.map(() => "---").join(" | ")} |`;
  const rows = ACTIONS.map((a) => `| ${a} | ${STATUS_CODES.map((s) => cellText(s, TRANSITIONS[a][s])).join(" | ")} |`);
  // One line per action and condition, naming the statuses it applies from.
  const notes: string[] = [];
  for (const a of ACTIONS) {
    const byWhen = new Map<string, StatusCode[]>();
    for (const s of STATUS_CODES) {
      const w = TRANSITIONS[a][s]?.when;
      if (w) byWhen.set(w, [...(byWhen.get(w) ?? []), s]);
    }
    for (const [w, from] of byWhen) {
      const where = from.length === STATUS_CODES.length ? "from any status" : `from ${from.map((s) => `${s} ${statusName(s)}`).join(", ")}`;
      notes.push(`- ${a} ${where}: ${w}.`);
    }
  }
  return [TABLE_BEGIN, "", head, sep, ...rows, "", "Conditions and effects:", "", ...notes, "", TABLE_END].join("\n");
}

/** Replaces the generated section of the document's text. */
export function withTable(doc: string): string {
  const a = doc.indexOf(TABLE_BEGIN);
  const b = doc.indexOf(TABLE_END);
  if (a < 0 || b < a) throw new Error("docs/project-lifecycle.md has no transition table markers");
  return doc.slice(0, a) + renderTransitionTable() + doc.slice(b + TABLE_END.length);
}

if (import.meta.main) {
  const { readFileSync, writeFileSync } = await import("node:fs");
  const { resolve } = await import("node:path");
  const path = resolve(import.meta.dir, "../../../../docs/project-lifecycle.md");
  writeFileSync(path, withTable(readFileSync(path, "utf8")));
  console.log(`wrote the transition table into ${path}`);
}
