// wave/{projectQuestionId}: a measure's top-2-box over waves (trackers) or weeks since launch (NPD),
// each against the wave before it with WaveData's significance (▲ / ▼ in the table, and in words).
import { Lines, pct } from "../../../components/charts/Charts";
import { EmptyState, Select, Skeleton, Table } from "../../../components/ui";
import { useLocation } from "wouter";
import { resultsLink } from "../../../lib/projectLinks";
import { testOptionName, useResults } from "../../../features/results/context";
import { useWaveData, type WaveData } from "../../../features/results/queries";
import { isScaledMeasure } from "../../../features/results/questions";
import { methodNote, PageTitle } from "./MeasuresView";

export function WaveLines({ data, standardQuestionId }: { data: WaveData; standardQuestionId: number }) {
  const { testOptions, confidence } = useResults();
  const xLabel = data.waveKind === "weekSinceLaunch" ? "Week since launch" : "Wave";
  const optionIds = [...new Set(data.waves.flatMap((w) => w.measures.filter((m) => m.standardQuestionId === standardQuestionId).flatMap((m) => m.results.map((r) => r.testOptionId))))];
  const title = data.waves.flatMap((w) => w.measures).find((m) => m.standardQuestionId === standardQuestionId)?.title ?? "Measure";
  const cell = (w: WaveData["waves"][number], id: number | null) => w.measures.find((m) => m.standardQuestionId === standardQuestionId)?.results.find((r) => r.testOptionId === id);
  const series = optionIds.map((id) => ({
    id: testOptionName(testOptions, id),
    optionId: id,
    points: data.waves.map((w) => ({ x: w.wave, y: cell(w, id)?.top2 ?? null })),
  }));
  // Wave on wave (WaveData vsPreviousWave: independent samples, adjusted within the view).
  const moves = data.waves.flatMap((w) =>
    series.flatMap((s) => {
      const v = cell(w, s.optionId)?.vsPreviousWave;
      return v?.significant ? [{ wave: w.wave, from: v.wave, option: s.id, diff: v.diff }] : [];
    }),
  );
  if (!data.waves.length) return <EmptyState title="No waves for these filters">No respondents match these filters in any wave: widen or clear the filters.</EmptyState>;
  return (
    <div className="space-y-4">
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="wave-chart">
        <Lines title={`${title}: top-2-box by ${xLabel.toLowerCase()}`} series={series} xLegend={xLabel} yLegend="Top-2-box (%)" xType="point" />
      </div>
      {/* The wave's dates and respondents under its number (one column), so the options' columns fit a phone. */}
      <Table dense head={[xLabel, ...series.map((s) => s.id)]} caption={`${title} by ${xLabel.toLowerCase()}`}>
        {data.waves.map((w, i) => (
          <tr key={w.wave}>
            <td className="px-2 py-2">
              <span className="font-medium text-ink-900">{w.wave}</span>
              <span className="block text-xs whitespace-nowrap text-ink-600">
                {w.from ?? "—"}
                {w.to && w.to !== w.from ? " –" : ""}
              </span>
              {w.to && w.to !== w.from ? <span className="block text-xs whitespace-nowrap text-ink-600">{w.to}</span> : null}
              <span className="block text-xs text-ink-500">n {w.respondents}</span>
            </td>
            {series.map((s) => {
              const v = cell(w, s.optionId)?.vsPreviousWave;
              return (
                <td key={s.id} className="px-2 py-2 whitespace-nowrap">
                  {pct(s.points[i]?.y, 1)}
                  {v ? (
                    <span
                      className={v.significant ? (v.diff > 0 ? "block text-xs font-semibold text-sky-800" : "block text-xs font-semibold text-orange-800") : "block text-xs text-ink-500"}
                      data-testid={v.significant ? "wave-sig" : undefined}
                    >
                      {v.diff > 0 ? "+" : "−"}
                      {(Math.abs(v.diff) * 100).toFixed(1)} pts{v.significant ? (v.diff > 0 ? " ▲" : " ▼") : ""}
                    </span>
                  ) : null}
                </td>
              );
            })}
          </tr>
        ))}
      </Table>
      <p className="text-xs text-ink-500" data-testid="wave-method">
        Each figure against the same {xLabel.toLowerCase()} before it: ▲ / ▼ a significant rise / fall (independent samples). {methodNote(data.method, confidence)}
      </p>
      {moves.length ? (
        <ul className="space-y-1 text-sm text-ink-800" aria-label="Significant changes between waves">
          {moves.map((m) => (
            <li key={`${m.wave}-${m.option}`}>
              {m.option}: {m.diff > 0 ? "up" : "down"} {(Math.abs(m.diff) * 100).toFixed(1)} points from {xLabel.toLowerCase()} {m.from} to {m.wave}, significantly.
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-ink-700">
          No significant change between consecutive {xLabel === "Wave" ? "waves" : "weeks"} on {title}.
        </p>
      )}
    </div>
  );
}

export default function Wave({ projectQuestionId }: { projectQuestionId: number }) {
  const { questions, clientId, projectId } = useResults();
  const [, navigate] = useLocation();
  const { data } = useWaveData();
  const pq = questions.find((q) => q.id === projectQuestionId);
  const measureQs = questions.filter(isScaledMeasure);
  if (!pq?.standardQuestionId) return <EmptyState title="Not a tracked measure">Waves are shown for the framework's measures.</EmptyState>;
  return (
    <div>
      <PageTitle title="Waves" subtitle="How each measure moves from wave to wave." />
      <div className="mb-4 max-w-xs">
        <label htmlFor="wave-measure" className="mb-1 block text-xs font-medium text-ink-600">
          Measure
        </label>
        <Select id="wave-measure" value={projectQuestionId} onChange={(e) => navigate(`~${resultsLink(clientId, projectId, `wave/${e.target.value}`)}`)}>
          {measureQs.map((q) => (
            <option key={q.id} value={q.id}>
              {q.question?.questionTitle ?? q.question?.questionText}
            </option>
          ))}
        </Select>
      </div>
      {!data ? <Skeleton className="h-80" /> : <WaveLines data={data} standardQuestionId={pq.standardQuestionId} />}
    </div>
  );
}
