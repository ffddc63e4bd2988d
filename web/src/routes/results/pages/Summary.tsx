// summary: verdict first. The concepts ranked on the team's action standard with a go / consider /
// no-go line each (Responses/Scorecard: QualResults' own tests on the view on screen), the
// standard itself (set by those who may change the project, read by everyone), the AI summary
// written for this view (or labelled with its own scope), and the base. All results has the
// measures chart and table; this page does not repeat them.
import { useState } from "react";
import { api, unwrap } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { handleError } from "../../../api/errors";
import { pct } from "../../../components/charts/Charts";
import { toast } from "../../../components/toast";
import { Badge, Button, Card, EmptyState, Select, Skeleton } from "../../../components/ui";
import { useCanWrite } from "../../../features/access";
import { BENCHMARK_LABELS } from "../../../features/results/benchmarks";
import { ConceptImage } from "../../../features/results/conceptImage";
import { testOptionName, useResults } from "../../../features/results/context";
import { Markdown } from "../../../features/results/markdown";
import { useActionStandard, useScorecard, useWeightSum, type ActionStandard } from "../../../features/results/queries";
import { isWriting, summaryBenchmark, summaryForView, summaryRefs, useAiSummaries } from "../../../features/results/summaries";
import { methodNote, PageTitle } from "./MeasuresView";
import { formatCount } from "../../../lib/numbers";

const VERDICT = {
  go: { label: "Go", tone: "green" },
  consider: { label: "Consider", tone: "amber" },
  "no-go": { label: "No go", tone: "red" },
} as const;

function againstText(against: "benchmark" | "others", benchmarkId: number | null): string {
  if (against === "others") return "against each other";
  return benchmarkId === null ? "against the benchmark" : `against the benchmark (${BENCHMARK_LABELS[benchmarkId] ?? `type ${benchmarkId}`})`;
}

function StandardEditor({ standard, onSaved }: { standard: ActionStandard; onSaved: () => void }) {
  const { projectId } = useResults();
  const [sq, setSq] = useState(standard.standardQuestionId);
  const [against, setAgainst] = useState<"benchmark" | "others">(standard.against);
  const [busy, setBusy] = useState(false);
  const dirty = sq !== standard.standardQuestionId || against !== standard.against;
  const save = async () => {
    setBusy(true);
    try {
      await unwrap(api.PUT("/api/v1/Projects({key})/ActionStandard", { params: { path: { key: String(projectId) } }, body: { standardQuestionId: sq, against } }));
      toast.success("Action standard saved");
      onSaved();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="flex flex-wrap items-end gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      aria-label="Action standard"
    >
      <div>
        <label htmlFor="standard-measure" className="mb-1 block text-xs font-medium text-ink-600">
          Measure
        </label>
        <Select id="standard-measure" value={sq} onChange={(e) => setSq(Number(e.target.value))}>
          {standard.measures.map((m) => (
            <option key={m.standardQuestionId} value={m.standardQuestionId}>
              {m.title}
            </option>
          ))}
        </Select>
      </div>
      <div>
        <label htmlFor="standard-against" className="mb-1 block text-xs font-medium text-ink-600">
          Passes when significantly above
        </label>
        <Select id="standard-against" value={against} onChange={(e) => setAgainst(e.target.value === "others" ? "others" : "benchmark")}>
          <option value="benchmark">the benchmark</option>
          <option value="others">every other concept</option>
        </Select>
      </div>
      <Button type="submit" size="sm" busy={busy} disabled={!dirty}>
        Save standard
      </Button>
    </form>
  );
}

function ScorecardView() {
  const { testOptions, benchmarkId, confidence } = useResults();
  const canWrite = useCanWrite();
  const { data: sc, isLoading, mutate } = useScorecard();
  const standard = useActionStandard();
  const name = (id: number | null) => testOptionName(testOptions, id);
  if (!sc) return isLoading ? <Skeleton className="h-48" /> : null;
  const s = sc.standard;
  return (
    <Card title="Verdict">
      <p className="text-sm text-ink-600" data-testid="action-standard">
        Action standard: <span className="font-medium text-ink-900">{s.title}</span> top-2-box, significantly above {sc.judgedAgainst === "others" ? "every other concept" : "the benchmark"}
        {s.isDefault ? " (the default: the headline measure against the benchmark)" : ""}.
        {s.against === "others" && sc.judgedAgainst === "benchmark" ? " One concept only: judged against the benchmark." : ""}
      </p>
      {canWrite && standard.data ? (
        <details className="mt-2">
          <summary className="cursor-pointer text-sm text-brand-700">Change the action standard</summary>
          <div className="mt-3">
            <StandardEditor key={`${standard.data.standardQuestionId}-${standard.data.against}`} standard={standard.data} onSaved={() => void Promise.all([standard.mutate(), mutate()])} />
          </div>
        </details>
      ) : null}
      {sc.base === 0 || !sc.rows.length ? (
        <div className="mt-4">
          <EmptyState title="No respondents match these filters">Nobody answered {s.title} under the market and filters on screen: widen or clear the filters to see a verdict.</EmptyState>
        </div>
      ) : (
        <>
          <p className="mt-4 text-lg font-semibold text-ink-900" data-testid="verdict-headline">
            {sc.headline}
          </p>
          <ol className="mt-3 divide-y divide-ink-100 rounded-lg border border-ink-200" aria-label={`Concepts ranked on ${s.title}`}>
            {sc.rows.map((r) => {
              const v = VERDICT[r.verdict];
              return (
                <li key={r.testOptionId ?? "all"} className="flex flex-wrap items-start gap-3 p-3 sm:flex-nowrap" data-testid="verdict-row">
                  <span className="w-6 shrink-0 pt-1 text-sm font-semibold text-ink-500">
                    <span className="sr-only">Rank </span>
                    {r.rank}
                  </span>
                  <ConceptImage testOptionId={r.testOptionId} name={name(r.testOptionId)} size="sm" />
                  {/* basis-48: on a phone the figure and the verdict wrap under the name rather than squeeze it. */}
                  <div className="min-w-0 flex-1 basis-48">
                    <p className="font-medium break-words text-ink-900">{name(r.testOptionId)}</p>
                    <p className="text-sm text-ink-700">{r.reason}</p>
                  </div>
                  <div className="ml-9 shrink-0 sm:ml-0 sm:text-right">
                    <p className="text-sm font-semibold text-ink-900">{pct(r.top2, 1)}</p>
                    <p className="text-xs whitespace-nowrap text-ink-500">
                      {pct(r.ci[0])}–{pct(r.ci[1])} · n {formatCount(r.n)}
                    </p>
                  </div>
                  <span className="flex shrink-0 flex-col items-end gap-1 pt-0.5">
                    <span data-testid="verdict">
                      <Badge tone={v.tone}>{v.label}</Badge>
                    </span>
                    {r.firm ? null : (
                      <span className="text-xs text-ink-500" data-testid="verdict-tentative">
                        not a tested verdict
                      </span>
                    )}
                  </span>
                </li>
              );
            })}
          </ol>
          <p className="mt-2 text-xs text-ink-500">
            {s.title} top-2-box {againstText(sc.judgedAgainst, benchmarkId)}. {methodNote(sc.method, confidence)} Ranks count the concepts significantly ahead in these tests. A low base is never go or
            no go; an indicative norm decides on its point estimate and says so.
          </p>
        </>
      )}
    </Card>
  );
}

/**
 * Whether the summary shown as the view's still agrees with it (Responses/SummaryCurrent: every
 * figure it cites is the view's now); undefined while unknown or for another scope's summary.
 */
function useSummaryCurrent(summaryId: number | null) {
  const { projectId, filtersJson, benchmarkId, allMarkets } = useResults();
  return useApi(summaryId === null ? null : ["SummaryCurrent", projectId, summaryId, filtersJson, benchmarkId, allMarkets], () =>
    api.GET("/api/v1/Responses/SummaryCurrent", {
      params: {
        query: {
          projectId: String(projectId),
          summaryId: String(summaryId),
          filters: filtersJson,
          ...(benchmarkId === null ? {} : { benchmarkTypeId: String(benchmarkId) }),
          total: allMarkets ? "markets" : "sample",
        },
      },
    }),
  );
}

function AiSummaryView() {
  const { projectId, responseFilter, benchmarkId, regionIds, allMarkets } = useResults();
  const canWrite = useCanWrite();
  const { data, mutate } = useAiSummaries(projectId);
  const [busy, setBusy] = useState(false);
  const shown = data ? summaryForView(data.value, responseFilter, benchmarkId, regionIds) : null;
  const ready = shown?.scope === "view" && shown.summary.status === "Ready" && shown.summary.content ? shown.summary.id : null;
  const { data: check } = useSummaryCurrent(ready);
  const outOfDate = check && !check.current ? check.note : null;
  const write = async () => {
    setBusy(true);
    try {
      await unwrap(api.POST("/api/v1/AiProjectSummaries", { body: { projectId, filters: responseFilter, benchmarkTypeId: benchmarkId, total: allMarkets ? "markets" : "sample" } }));
      toast.ai("Summary requested", "It is being written for the market, filters and benchmark on screen; it appears here when ready.");
      await mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  const s = shown?.summary;
  const scope = !shown
    ? null
    : shown.scope === "view"
      ? "Written for the market, filters and benchmark on screen."
      : `Written for all markets and all respondents${regionIds.length > 1 ? (shown.summary.total === "markets" ? " (the all-markets total, markets weighted by population)" : " (the sample-weighted total)") : ""}, against ${BENCHMARK_LABELS[summaryBenchmark(shown.summary)] ?? "the default benchmark"}: not the view on screen.`;
  return (
    <Card
      title="AI summary"
      actions={
        canWrite && (shown?.scope !== "view" || outOfDate) ? (
          <Button size="sm" variant="secondary" busy={busy} onClick={() => void write()}>
            Write one for this view
          </Button>
        ) : null
      }
    >
      {!data ? (
        <Skeleton className="h-24" />
      ) : !s ? (
        <p className="text-sm text-ink-600">No summary yet. {canWrite ? "Write one for this view, or save an objective (Objectives)." : "One is written when the results are ready."}</p>
      ) : (
        <div aria-live="polite">
          <p className="mb-3 text-xs text-ink-500" data-testid="summary-scope">
            {scope}
          </p>
          {outOfDate ? (
            <p className="mb-3 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" role="note" data-testid="summary-out-of-date">
              {outOfDate}
            </p>
          ) : null}
          {s.status === "Failed" ? (
            <p className="text-sm text-rose-700">This summary could not be written.</p>
          ) : s.content && !isWriting(s) ? (
            <Markdown text={s.content} refs={summaryRefs(s)} />
          ) : (
            <p className="text-sm text-ink-500" role="status">
              Being prepared… it appears here when ready.
            </p>
          )}
        </div>
      )}
    </Card>
  );
}

export default function Summary() {
  const { data: ws } = useWeightSum();
  return (
    <div>
      <PageTitle title="Summary" subtitle="Which concepts meet the action standard, and what the results say." />
      <div className="space-y-5">
        <ScorecardView />
        <AiSummaryView />
        <div className="grid gap-3 sm:grid-cols-2">
          <Card>
            <p className="text-xs text-ink-500">Respondents</p>
            {ws ? (
              <p className="text-2xl font-semibold" data-testid="summary-respondents">
                {ws.count.toLocaleString()}
              </p>
            ) : (
              <Skeleton className="h-8" />
            )}
          </Card>
          <Card>
            <p className="text-xs text-ink-500">Effective sample (Kish)</p>
            {ws ? <p className="text-2xl font-semibold">{formatCount(ws.nEff)}</p> : <Skeleton className="h-8" />}
          </Card>
        </div>
      </div>
    </div>
  );
}
