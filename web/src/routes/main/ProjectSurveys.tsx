// project-surveys/{projectId}: a submitted project while it is reviewed, waits for its survey and
// is fielded (statuses 200 to 399, and on): where it stands, and its survey runs with completes per
// region (Projects DecipherCompletesCounts) with each quota cell's completes against its cap, and its
// waves (SchedulingState), live from the client channel (ProjectUpdated and the runs' Progress
// events); each run says where its respondents come from (its sample source) and its field period
// "closes at" its field end, "stalled", or why it closed.
import { useEffect } from "react";
import { Link, useParams } from "wouter";
import { api, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import type { CurrentClient } from "../../state/client";
import { Badge, Card, EmptyState, PageHeader, PageSkeleton, Skeleton, Table, cx } from "../../components/ui";
import { useProjectEvents } from "../../features/projects";
import { keyPath, useEditorProject } from "../../features/projects-editor/data";
import { onRealtime } from "../../state/realtime";
import { ProjectTitle } from "./editor/shared";
import { dateText } from "./editor/SchedulingTab";
import { SAMPLE_SOURCE_TEXT, fieldPeriodText } from "../../features/fielding";
import { CopyValue } from "../../components/CopyValue";

type RunCount = Schemas["DecipherCompletesCountsResult"]["value"][number];
type ScheduleRow = {
  id: number;
  regionId: number;
  waveNumber: number | null;
  scheduleDate: string;
  isCustomerPanel: boolean;
  sampleSize: number | null;
  launchState: string;
  blockedReason: string | null;
  chargeStatus: string;
  creditAmount: number | null;
};
type SchedulingState = {
  waveMode: boolean;
  nextScheduleDate: string | null;
  wavesRun: number;
  wavesUpcoming: number;
  regions: { regionId: number; regionName: string; upcoming: ScheduleRow[]; past: ScheduleRow[] }[];
};

export const SURVEY_STATUSES: Record<number, string> = { 0: "Draft", 10: "Testing", 50: "Live", 90: "Closed", 130: "Dev", 1000: "ErrorXml", 1010: "ErrorProcessing" };

/** The steps a project goes through after submission (docs/project-lifecycle.md). */
const STEPS = [
  { code: 100, label: "Submitted" },
  { code: 200, label: "Reviewing questions" },
  { code: 300, label: "Awaiting survey" },
  { code: 400, label: "Fielding" },
  { code: 800, label: "Results" },
];

function Steps({ status }: { status: number }) {
  const current = STEPS.reduce((i, s, j) => (status >= s.code ? j : i), 0);
  return (
    <ol className="grid grid-cols-2 gap-2 sm:grid-cols-5" aria-label="Progress">
      {STEPS.map((s, i) => (
        <li
          key={s.code}
          aria-current={i === current ? "step" : undefined}
          className={cx(
            "rounded-lg border px-3 py-2 text-sm",
            i < current ? "border-emerald-200 bg-emerald-50 text-emerald-900" : i === current ? "border-brand-300 bg-brand-50 font-semibold text-brand-900" : "border-ink-200 text-ink-500",
          )}
        >
          <span className="block text-xs">Step {i + 1}</span>
          {s.label}
        </li>
      ))}
    </ol>
  );
}

/** One target group's quota cells in a run: each cell's completes against its cap, with a bar. */
function QuotaProgress({ group, title }: { group: RunCount["quotas"][number]; title: string }) {
  return (
    <section aria-label={`Quotas: ${title}`}>
      <p className="mb-2 text-sm font-medium text-ink-800">{title}</p>
      <ul className="grid gap-2 sm:grid-cols-2">
        {group.cells.map((c) => {
          const pct = c.target ? Math.min(100, Math.round((c.completes / c.target) * 100)) : 0;
          const full = c.completes >= c.target;
          return (
            <li key={c.optionIds ? c.optionIds.join("x") : (c.optionId ?? "others")} className="rounded-lg border border-ink-100 px-3 py-2" data-testid="quota-cell">
              <div className="flex items-baseline justify-between gap-2 text-sm">
                <span className="font-medium text-ink-900">{c.label}</span>
                <span className="whitespace-nowrap text-ink-700" data-testid="quota-cell-count">
                  {c.completes} / {c.target}
                  {full ? " · full" : ""}
                </span>
              </div>
              <div
                className="mt-1.5 h-2 overflow-hidden rounded-full bg-ink-100"
                role="progressbar"
                aria-label={`${c.label}: completes in the quota cell`}
                aria-valuenow={c.completes}
                aria-valuemin={0}
                aria-valuemax={c.target}
              >
                <div className={full ? "h-full bg-emerald-600" : "h-full bg-brand-600"} style={{ width: `${pct}%` }} />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export default function ProjectSurveys({ client }: { client: CurrentClient }) {
  const params = useParams<{ projectId: string }>();
  const projectId = Number(params.projectId);
  const { data: project } = useEditorProject(projectId);
  const counts = useApi<{ value: RunCount[] }>(project ? ["DecipherCompletesCounts", projectId] : null, () =>
    api.GET("/api/v1/Projects({key})/DecipherCompletesCounts", { params: keyPath(projectId) }),
  );
  const scheduling = useApi<SchedulingState>(project ? ["SchedulingState", projectId] : null, () => api.GET("/api/v1/Projects({key})/SchedulingState", { params: keyPath(projectId) }));
  useProjectEvents(() => {
    void counts.mutate();
    void scheduling.mutate();
  }, projectId);
  // A run's Progress events name it (survey-run-{id}); refetch when one of ours moves.
  useEffect(
    () =>
      onRealtime((ev) => {
        if (ev.event !== "Progress" || ev.data === null) return;
        const runId = Number(ev.data.jobId.replace("survey-run-", ""));
        if (counts.data?.value.some((r) => r.surveyRunId === runId) || !counts.data?.value.length) void counts.mutate();
      }),
    [counts],
  );
  if (!project) return <PageSkeleton />;
  const regionName = (id: number) =>
    project.projectsRegions.find((r) => r.regionId === id)?.region?.regionName ?? scheduling.data?.regions.find((r) => r.regionId === id)?.regionName ?? `Region ${id}`;
  const runs = counts.data?.value ?? [];

  return (
    <div>
      <PageHeader title={project.projectName} subtitle={<ProjectTitle project={project} />} />
      <div className="space-y-6">
        <Card title="Where it stands">
          <Steps status={project.statusCode} />
          <p className="mt-4 text-sm text-ink-700">
            {project.statusCode < 300
              ? "The Ideally team is checking the questionnaire and targets. You will be notified when it is approved."
              : project.statusCode < 400
                ? `Approved. ${scheduling.data?.nextScheduleDate ? `The survey starts on ${dateText(scheduling.data.nextScheduleDate)}.` : "The survey starts shortly."}`
                : project.statusCode < 800
                  ? "The survey is in the field; completes below update live."
                  : "Results are ready."}{" "}
            {project.statusCode >= 800 ? (
              <Link className="font-medium text-brand-700 underline" href={`~/${client.id}/results/${project.id}`}>
                Open the results
              </Link>
            ) : null}
          </p>
        </Card>
        <Card title="Survey runs">
          {!counts.data ? (
            <Skeleton className="h-24" />
          ) : !runs.length ? (
            <EmptyState title="No survey runs yet">A run per market starts when the project's first wave is due.</EmptyState>
          ) : (
            <Table head={["Market", "Sample", "Wave", "Status", "Field period", "Completes", "Screened out"]} caption="Survey runs">
              {runs.map((r) => {
                const pct = r.targetCompletes ? Math.min(100, Math.round((r.complete / r.targetCompletes) * 100)) : 0;
                const period = fieldPeriodText(r);
                return (
                  <tr key={r.surveyRunId}>
                    <td className="px-4 py-2.5 font-medium">{regionName(r.regionId)}</td>
                    <td className="px-4 py-2.5" data-testid="sample-source">
                      {SAMPLE_SOURCE_TEXT[r.sampleSource]}
                    </td>
                    <td className="px-4 py-2.5">{r.waveNumber ?? "—"}</td>
                    <td className="px-4 py-2.5">
                      <Badge tone={r.surveyStatusId === 50 ? "green" : r.surveyStatusId >= 1000 ? "red" : "neutral"}>{SURVEY_STATUSES[r.surveyStatusId] ?? r.surveyStatusId}</Badge>
                    </td>
                    <td className="px-4 py-2.5" data-testid="field-period">
                      <Badge tone={period.tone}>{period.label}</Badge>
                      {period.detail ? <p className="mt-1 max-w-xs text-xs text-ink-600">{period.detail}</p> : null}
                    </td>
                    <td className="px-4 py-2.5">
                      <div className="flex items-center gap-2">
                        <div
                          className="h-2 w-24 overflow-hidden rounded-full bg-ink-100"
                          role="progressbar"
                          aria-label={`Completes in ${regionName(r.regionId)}`}
                          aria-valuenow={r.complete}
                          aria-valuemin={0}
                          aria-valuemax={r.targetCompletes ?? undefined}
                        >
                          <div className="h-full bg-brand-600" style={{ width: `${pct}%` }} />
                        </div>
                        <span className="whitespace-nowrap" data-testid="completes">
                          {r.complete} / {r.targetCompletes ?? "—"}
                        </span>
                      </div>
                    </td>
                    <td className="px-4 py-2.5">{r.screenedOut}</td>
                  </tr>
                );
              })}
            </Table>
          )}
          {runs.some((r) => r.quotas.length) ? (
            <div className="mt-5 space-y-4" data-testid="quota-progress">
              <h3 className="text-sm font-semibold text-ink-900">Quota cells</h3>
              {runs.flatMap((r) =>
                r.quotas.map((g) => <QuotaProgress key={`${r.surveyRunId}-${g.key}`} group={g} title={`${g.question}, ${regionName(r.regionId)}${r.waveNumber ? `, wave ${r.waveNumber}` : ""}`} />),
              )}
            </div>
          ) : null}
          {runs.some((r) => r.respondentLink) ? (
            <div className="mt-4 space-y-3" data-testid="respondent-links">
              <p className="text-sm text-ink-700">Your own panel answers through these links: send them to your list. Anyone with a link can answer; completes count toward the run's target.</p>
              {runs.flatMap((r) =>
                r.respondentLink
                  ? [
                      <CopyValue
                        key={r.surveyRunId}
                        id={`respondent-link-${r.surveyRunId}`}
                        label={`Respondent link, ${regionName(r.regionId)}${r.waveNumber ? `, wave ${r.waveNumber}` : ""}`}
                        value={r.respondentLink}
                      />,
                    ]
                  : [],
              )}
            </div>
          ) : null}
        </Card>
        <Card title="Waves">
          {!scheduling.data ? (
            <Skeleton className="h-24" />
          ) : (
            <>
              <p className="mb-3 text-sm text-ink-600">
                Waves run: {scheduling.data.wavesRun} · to come: {scheduling.data.wavesUpcoming}
                {scheduling.data.waveMode ? " · wave mode" : ""}
              </p>
              <Table head={["Market", "Wave", "Date", "State", "Credits"]} caption="Waves">
                {scheduling.data.regions.flatMap((reg) =>
                  [...reg.past, ...reg.upcoming].map((s) => (
                    <tr key={s.id}>
                      <td className="px-4 py-2.5">
                        {reg.regionName}
                        {s.isCustomerPanel ? " (customer panel)" : ""}
                      </td>
                      <td className="px-4 py-2.5">{s.waveNumber ?? "—"}</td>
                      <td className="px-4 py-2.5">{dateText(s.scheduleDate)}</td>
                      <td className="px-4 py-2.5">
                        <Badge tone={s.launchState === "Blocked" ? "red" : s.launchState === "Run" ? "green" : "blue"}>{s.launchState}</Badge>
                        {s.blockedReason ? <span className="ml-2 text-xs text-rose-700">{s.blockedReason}</span> : null}
                      </td>
                      <td className="px-4 py-2.5">{s.creditAmount !== null ? Math.abs(s.creditAmount).toLocaleString("en") : "—"}</td>
                    </tr>
                  )),
                )}
              </Table>
            </>
          )}
        </Card>
      </div>
    </div>
  );
}
