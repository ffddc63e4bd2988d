// admin/surveys: survey runs of every client (newest first; ?project= narrows to one project)
// with the fielding actions of the SurveyRuns set (and the field end: ExtendFieldPeriod), each run's
// sample source, its field period ("closes at", stalled, why it closed), respondent removal by UUID,
// and a supplier run's callbacks with Resend for a failed one (SupplierCallbacks.tsx).
import { useState } from "react";
import { ActionFooter, Modal } from "../../components/Dialog";
import { Badge, Button, Field, Input, PageHeader, Select, Textarea } from "../../components/ui";
import { useSearchState } from "../../lib/search";
import { toast } from "../../components/toast";
import { api, type Row } from "../../api/client";
import { SAMPLE_SOURCE_TEXT, fieldPeriodText } from "../../features/fielding";
import { AuditLog, DataTable, Pager, Td, act, fmtDate, forClient, keyPath, useSet, type Call } from "./shared";
import { SampleAllocationsDialog } from "./SampleAllocations";
import { SupplierCallbacksDialog } from "./SupplierCallbacks";

const PAGE = 25;
const SURVEY_STATUSES: Record<number, string> = { 0: "Draft", 10: "Testing", 50: "Live", 90: "Closed", 130: "Dev", 1000: "ErrorXml", 1010: "ErrorProcessing" };
const TONES: Record<number, "neutral" | "blue" | "green" | "red" | "amber"> = { 0: "neutral", 10: "amber", 50: "blue", 90: "green", 130: "neutral", 1000: "red", 1010: "red" };

type Run = Row<
  "SurveyRuns",
  "id" | "clientId" | "surveyStatusId" | "sampleSource" | "targetCompletes" | "isSimulated" | "scheduleDate" | "launchedAt" | "closedAt" | "processedAt" | "fieldEndAt" | "stalledAt" | "closedReason",
  {
    region: Row<"Regions", "regionName"> | null;
    client: Row<"Clients", "name"> | null;
    "surveySessions@odata.count"?: number;
    projectSchedules: Row<"ProjectSchedules", "projectId", { project: Row<"Projects", "projectName"> | null }>[];
  }
>;

const ACTIONS: { action: "LaunchSurvey" | "ForceCloseSurvey" | "StartSurveyProcessing" | "ProcessProjectData"; label: string; when: (r: Run) => boolean }[] = [
  { action: "LaunchSurvey", label: "Launch", when: (r) => r.surveyStatusId === 0 || r.surveyStatusId === 10 },
  { action: "ForceCloseSurvey", label: "Force close", when: (r) => r.surveyStatusId === 50 },
  { action: "StartSurveyProcessing", label: "Start processing", when: (r) => r.surveyStatusId === 90 || r.surveyStatusId === 1010 },
  { action: "ProcessProjectData", label: "Process data", when: (r) => r.surveyStatusId === 90 },
];

export default function Surveys() {
  const [search, setSearch] = useSearchState();
  const project = String(search.project ?? "");
  const status = String(search.status ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const [simulate, setSimulate] = useState<Run | null>(null);
  const [removing, setRemoving] = useState<Run | null>(null);
  const [extending, setExtending] = useState<Run | null>(null);
  const [callbacks, setCallbacks] = useState<Run | null>(null);
  const [allocations, setAllocations] = useState<Run | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [audit, setAudit] = useState(0);
  const filters = [/^\d+$/.test(project) ? `projectSchedules/any(s:s/projectId eq ${project})` : "", /^\d+$/.test(status) ? `surveyStatusId eq ${status}` : ""].filter(Boolean);
  const query = {
    $select: "id,clientId,surveyStatusId,sampleSource,targetCompletes,isSimulated,scheduleDate,launchedAt,closedAt,processedAt,fieldEndAt,stalledAt,closedReason",
    // Completes only (issue 37: every session was counted, 280 / 200 here beside 200 / 200 on the
    // researcher's status page, which counts completes): screen-outs and over-quota are not completes.
    $expand: "region($select=regionName),client($select=name),surveySessions/$count($filter=status eq 'Complete'),projectSchedules($select=projectId;$expand=project($select=projectName))",
    $orderby: "id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(filters.length ? { $filter: filters.join(" and ") } : {}),
  };
  const { data, isLoading, mutate } = useSet<Run>("SurveyRuns", query);
  const done = () => {
    void mutate();
    setAudit((n) => n + 1);
  };
  async function run(r: Run, action: string, label: string, call: Call) {
    setBusy(`${action}-${r.id}`);
    const ok = await act(call, `${label}: run ${r.id}`);
    setBusy(null);
    if (ok) done();
    return !!ok;
  }
  return (
    <div>
      <PageHeader
        title="Surveys"
        subtitle={project ? `Survey runs of project #${project}` : "Survey runs across clients"}
        actions={
          project ? (
            <Button variant="secondary" onClick={() => setSearch({ project: null, page: null })}>
              All runs
            </Button>
          ) : undefined
        }
      />
      <div className="mb-4 grid gap-3 sm:grid-cols-[12rem]">
        <div>
          <label htmlFor="run-status" className="sr-only">
            Survey status
          </label>
          <Select id="run-status" value={status} onChange={(e) => setSearch({ status: e.target.value, page: null })}>
            <option value="">All statuses</option>
            {Object.entries(SURVEY_STATUSES).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </Select>
        </div>
      </div>
      <DataTable
        caption="Survey runs"
        head={["Run", "Project", "Team", "Sample", "Status", "Completes", "Dates", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No survey runs"
        render={(r) => (
          <tr key={r.id}>
            <Td className="font-medium text-ink-900">
              #{r.id}
              <p className="text-xs font-normal text-ink-500">{r.region?.regionName}</p>
            </Td>
            <Td className="min-w-44">{[...new Map(r.projectSchedules.map((s) => [s.projectId, s.project?.projectName ?? `#${s.projectId}`])).values()].join(", ") || "—"}</Td>
            <Td>{r.client?.name ?? r.clientId}</Td>
            <Td data-testid="sample-source">
              {SAMPLE_SOURCE_TEXT[r.sampleSource]}
              {r.isSimulated && r.sampleSource !== "simulated" ? <p className="text-xs text-ink-500">with simulated respondents</p> : null}
              {r.sampleSource === "supplier" ? (
                <Button size="sm" variant="ghost" className="mt-1 -ml-2" onClick={() => setAllocations(r)} aria-label={`Suppliers of run ${r.id}`}>
                  Suppliers
                </Button>
              ) : null}
            </Td>
            <Td>
              <Badge tone={TONES[r.surveyStatusId] ?? "neutral"}>{SURVEY_STATUSES[r.surveyStatusId] ?? r.surveyStatusId}</Badge>
              <FieldPeriod run={r} />
            </Td>
            <Td className="whitespace-nowrap">
              {r["surveySessions@odata.count"] ?? 0} / {r.targetCompletes ?? "—"}
            </Td>
            <Td className="text-xs">
              <p>Launched {fmtDate(r.launchedAt)}</p>
              <p>Closed {fmtDate(r.closedAt)}</p>
            </Td>
            <Td>
              {/* Wraps rather than clips: the buttons do not fit beside the columns at 1280 px. */}
              <div className="flex flex-wrap justify-end gap-2 [&>button]:whitespace-nowrap">
                {ACTIONS.filter((a) => a.when(r)).map((a) => (
                  <Button
                    key={a.action}
                    size="sm"
                    variant="secondary"
                    busy={busy === `${a.action}-${r.id}`}
                    onClick={() => void run(r, a.action, a.label, api.POST(`/api/v1/SurveyRuns({key})/${a.action}`, { params: keyPath(r.id), ...forClient(r.clientId) }))}
                    aria-label={`${a.label} run ${r.id}`}
                  >
                    {a.label}
                  </Button>
                ))}
                {r.surveyStatusId === 50 || r.surveyStatusId === 10 ? (
                  <Button size="sm" variant="secondary" onClick={() => setExtending(r)} aria-label={`Move the field end of run ${r.id}`}>
                    Field end
                  </Button>
                ) : null}
                {r.surveyStatusId === 50 && r.sampleSource === "simulated" ? (
                  <Button size="sm" variant="secondary" onClick={() => setSimulate(r)} aria-label={`Simulate responses for run ${r.id}`}>
                    Simulate
                  </Button>
                ) : null}
                {r.sampleSource === "supplier" ? (
                  <Button size="sm" variant="secondary" onClick={() => setCallbacks(r)} aria-label={`Supplier callbacks of run ${r.id}`}>
                    Callbacks
                  </Button>
                ) : null}
                <Button size="sm" variant="ghost" onClick={() => setRemoving(r)} aria-label={`Remove respondents from run ${r.id}`}>
                  Remove respondents
                </Button>
              </div>
            </Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={(p) => setSearch({ page: p || null })} />
      {simulate ? (
        <SimulateDialog
          run={simulate}
          onClose={() => setSimulate(null)}
          onRun={(n) =>
            run(
              simulate,
              "RunSimulatedData",
              "Simulated responses",
              api.POST("/api/v1/SurveyRuns({key})/RunSimulatedData", { params: keyPath(simulate.id), body: { completes: n }, ...forClient(simulate.clientId) }),
            )
          }
        />
      ) : null}
      {extending ? (
        <FieldEndDialog
          run={extending}
          onClose={() => setExtending(null)}
          onSave={(at) =>
            run(
              extending,
              "ExtendFieldPeriod",
              "Field end moved",
              api.POST("/api/v1/SurveyRuns({key})/ExtendFieldPeriod", { params: keyPath(extending.id), body: { fieldEndAt: at }, ...forClient(extending.clientId) }),
            )
          }
        />
      ) : null}
      {removing ? <RemoveDialog run={removing} onClose={() => setRemoving(null)} onDone={done} /> : null}
      {allocations ? <SampleAllocationsDialog run={allocations} onClose={() => setAllocations(null)} onSaved={() => setAudit((n) => n + 1)} /> : null}
      {callbacks ? <SupplierCallbacksDialog run={callbacks} onClose={() => setCallbacks(null)} onResent={() => setAudit((n) => n + 1)} /> : null}
      <AuditLog filter="entityType eq 'SurveyRun' or (entityType eq 'Project' and event in ('WaveStarted','ResultsReady'))" title="Fielding events" refreshKey={audit} />
    </div>
  );
}

function SimulateDialog({ run, onClose, onRun }: { run: Run; onClose: () => void; onRun: (n: number) => Promise<boolean> }) {
  const [n, setN] = useState("50");
  return (
    <Modal open onClose={onClose} title={`Simulate responses for run ${run.id}`} footer={<ActionFooter onClose={onClose} label="Run" disabled={!(Number(n) > 0)} onAction={() => onRun(Number(n))} />}>
      <Field id="sim-n" label="Completes" hint="Simulated respondents answer with the run's targeted demographics">
        <Input id="sim-n" inputMode="numeric" value={n} onChange={(e) => setN(e.target.value)} />
      </Field>
    </Modal>
  );
}

function RemoveDialog({ run, onClose, onDone }: { run: Run; onClose: () => void; onDone: () => void }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ removed: number; notFound: string[] }>();
  const uuids = text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  async function remove() {
    setBusy(true);
    const r = await act(api.POST("/api/v1/SurveyRuns({key})/RemoveUuidsFromSurvey", { params: keyPath(run.id), body: { uuids }, ...forClient(run.clientId) }));
    setBusy(false);
    if (r) {
      toast.success("Respondents removed", `${r.removed} removed, ${r.notFound.length} not found`);
      setResult(r);
      onDone();
    }
  }
  return (
    <Modal
      open
      onClose={onClose}
      title={`Remove respondents from run ${run.id}`}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
          <Button variant="danger" busy={busy} disabled={!uuids.length} onClick={() => void remove()}>
            Remove {uuids.length || ""}
          </Button>
        </>
      }
    >
      <Field id="rm-uuids" label="Respondent UUIDs" hint="One per line or separated by commas; the run is re-weighted afterwards">
        <Textarea id="rm-uuids" rows={6} value={text} onChange={(e) => setText(e.target.value)} />
      </Field>
      {result ? (
        <p className="mt-3" role="status">
          Removed {result.removed}; not found: {result.notFound.length ? result.notFound.join(", ") : "none"}.
        </p>
      ) : null}
    </Modal>
  );
}

/** Stalled, or when it closes, or why it closed (features/fielding.ts). */
function FieldPeriod({ run }: { run: Run }) {
  const t = fieldPeriodText(run);
  return (
    <p className="mt-1 max-w-48 text-xs text-ink-600" data-testid="field-period">
      {t.label === "Stalled" ? <Badge tone="amber">Stalled</Badge> : t.label}
      {t.detail && t.label === "Stalled" ? <span className="mt-0.5 block">{t.detail}</span> : null}
    </p>
  );
}

/** ExtendFieldPeriod: a new field end (later to extend, earlier to shorten), in the future. */
function FieldEndDialog({ run, onClose, onSave }: { run: Run; onClose: () => void; onSave: (iso: string) => Promise<boolean> }) {
  const local = (iso: string) => {
    const d = new Date(iso);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  };
  const [value, setValue] = useState(run.fieldEndAt ? local(run.fieldEndAt) : local(new Date(Date.now() + 7 * 86_400_000).toISOString()));
  const at = value ? new Date(value) : null;
  const error = !at || Number.isNaN(at.getTime()) ? "Enter a date and time." : at.getTime() <= Date.now() ? "The field end must be in the future." : null;
  return (
    <Modal open onClose={onClose} title={`Field end of run ${run.id}`} footer={<ActionFooter onClose={onClose} label="Save" disabled={error !== null} onAction={() => onSave(at!.toISOString())} />}>
      <Field
        id="field-end"
        label="Closes at"
        error={error ?? undefined}
        hint={`Now ${run.fieldEndAt ? fmtDate(run.fieldEndAt) : "not set"}. At its field end the run closes with the completes it has and the shortfall is refunded.`}
      >
        <Input id="field-end" type="datetime-local" value={value} onChange={(e) => setValue(e.target.value)} />
      </Field>
    </Modal>
  );
}
