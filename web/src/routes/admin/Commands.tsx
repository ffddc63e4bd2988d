// admin/commands: the command runner (/api/CommandRunner/*). Each command is a queued job; its
// progress arrives on the websocket and every run is an audit row (CommandRequested, then
// CommandCompleted or CommandFailed). HubSpot syncs answer 503 until HUBSPOT_TOKEN is set.
import { useCallback, useEffect, useState } from "react";
import { Button, Card, Field, Input, PageHeader } from "../../components/ui";
import { api, type Schemas } from "../../api/client";
import { AuditLog, JobProgress, act, listenForJobs, useJob, type Call } from "./shared";

/** A command, its input (if any), and its typed call with the input's value. */
type Command = { name: string; label: string; description: string; input?: { label: string; kind: "date" | "number"; required?: boolean }; queue: (value: string) => Call<Schemas["CommandStarted"]> };

const asOf = (v: string) => ({ body: v ? { today: v } : {} });

const COMMANDS: Command[] = [
  {
    name: "SyncDemoData",
    label: "Sync demo data",
    description: "Seeds the demo clients, logins and projects when they are missing (not in production).",
    queue: () => api.POST("/api/CommandRunner/SyncDemoData", { body: {} }),
  },
  {
    name: "ReGenerateThemes",
    label: "Regenerate themes",
    description: "Codes a project's open answers again (themes and sentiment).",
    input: { label: "Project id", kind: "number", required: true },
    queue: (v) => api.POST("/api/CommandRunner/ReGenerateThemes", { body: { projectId: Number(v) } }),
  },
  {
    name: "ReGenerateTextResponsesQa",
    label: "Recheck open answers",
    description: "Gives every open answer of a project its quality status again (Ok, NonAnswer, TooShort, Gibberish, Duplicate) and counts each.",
    input: { label: "Project id", kind: "number", required: true },
    queue: (v) => api.POST("/api/CommandRunner/ReGenerateTextResponsesQa", { body: { projectId: Number(v) } }),
  },
  {
    name: "TestNextSchedule",
    label: "Test next schedule",
    description: "Dry run of the scheduler: the waves due and the next date.",
    input: { label: "As of (optional)", kind: "date" },
    queue: (v) => api.POST("/api/CommandRunner/TestNextSchedule", asOf(v)),
  },
  {
    name: "TestCreateNextSchedule",
    label: "Create next schedule",
    description: "Runs the scheduler's step and the fielding tick now.",
    input: { label: "As of (optional)", kind: "date" },
    queue: (v) => api.POST("/api/CommandRunner/TestCreateNextSchedule", asOf(v)),
  },
  {
    name: "RunHubspotClientSync",
    label: "HubSpot: companies",
    description: "Links clients to HubSpot companies (industry, company id).",
    queue: () => api.POST("/api/CommandRunner/RunHubspotClientSync", { body: {} }),
  },
  {
    name: "RunHubspotClientCustomPropsSync",
    label: "HubSpot: custom properties",
    description: "Copies the companies' custom properties.",
    queue: () => api.POST("/api/CommandRunner/RunHubspotClientCustomPropsSync", { body: {} }),
  },
  { name: "RunHubspotUserSync", label: "HubSpot: contacts", description: "Links users to HubSpot contacts.", queue: () => api.POST("/api/CommandRunner/RunHubspotUserSync", { body: {} }) },
  { name: "RunHubspotProjectSync", label: "HubSpot: deals", description: "Turns closed-won deals into credits.", queue: () => api.POST("/api/CommandRunner/RunHubspotProjectSync", { body: {} }) },
];

function CommandCard({ c, onRun }: { c: Command; onRun: () => void }) {
  const [value, setValue] = useState("");
  const [jobId, setJobId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const job = useJob(jobId);
  const finished = job?.status === "done" || job?.status === "failed";
  useEffect(() => {
    if (finished) onRun();
  }, [finished, onRun]);
  async function run() {
    setBusy(true);
    const r = await act(c.queue(value), `${c.label} queued`);
    setBusy(false);
    if (r) {
      setJobId(r.jobId);
      onRun();
    }
  }
  const id = `cmd-${c.name}`;
  return (
    <Card title={c.label}>
      <p className="mb-3 text-sm text-ink-600">{c.description}</p>
      {c.input ? (
        <div className="mb-3">
          <Field id={id} label={c.input.label}>
            <Input id={id} type={c.input.kind === "date" ? "date" : "text"} inputMode={c.input.kind === "number" ? "numeric" : undefined} value={value} onChange={(e) => setValue(e.target.value)} />
          </Field>
        </div>
      ) : null}
      <Button size="sm" busy={busy} disabled={!!c.input?.required && !value} onClick={() => void run()} aria-label={`Run ${c.label}`}>
        Run
      </Button>
      {job ? (
        <div className="mt-4">
          <JobProgress label={c.name} job={job} />
        </div>
      ) : null}
    </Card>
  );
}

export default function Commands() {
  const [audit, setAudit] = useState(0);
  const bump = useCallback(() => setAudit((n) => n + 1), []);
  useEffect(listenForJobs, []);
  return (
    <div>
      <PageHeader title="Commands" subtitle="Maintenance commands, run as queued jobs with live progress" />
      <div className="grid gap-4 md:grid-cols-2">
        {COMMANDS.map((c) => (
          <CommandCard key={c.name} c={c} onRun={bump} />
        ))}
      </div>
      <AuditLog filter="entityType eq 'Command'" title="Command runs" refreshKey={audit} />
    </div>
  );
}
