// wave/{projectQuestionId}: a measure's top-2-box over waves (trackers) or weeks since launch (NPD).
import { Lines, pct } from "../../../components/charts/Charts";
import { EmptyState, Select, Skeleton, Table } from "../../../components/ui";
import { useLocation } from "wouter";
import { resultsLink } from "../../../lib/projectLinks";
import { testOptionName, useResults } from "../../../features/results/context";
import { useWaveData, type WaveData } from "../../../features/results/queries";
import { PageTitle } from "./MeasuresView";

export function WaveLines({ data, standardQuestionId }: { data: WaveData; standardQuestionId: number }) {
  const { testOptions } = useResults();
  const xLabel = data.waveKind === "weekSinceLaunch" ? "Week since launch" : "Wave";
  const optionIds = [...new Set(data.waves.flatMap((w) => w.measures.filter((m) => m.standardQuestionId === standardQuestionId).flatMap((m) => m.results.map((r) => r.testOptionId))))];
  const title = data.waves.flatMap((w) => w.measures).find((m) => m.standardQuestionId === standardQuestionId)?.title ?? "Measure";
  const series = optionIds.map((id) => ({
    id: testOptionName(testOptions, id),
    points: data.waves.map((w) => ({ x: w.wave, y: w.measures.find((m) => m.standardQuestionId === standardQuestionId)?.results.find((r) => r.testOptionId === id)?.top2 ?? null })),
  }));
  if (!data.waves.length) return <EmptyState title="No waves for these filters" />;
  return (
    <div className="space-y-4">
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="wave-chart">
        <Lines title={`${title}: top-2-box by ${xLabel.toLowerCase()}`} series={series} xLegend={xLabel} yLegend="Top-2-box (%)" xType="point" />
      </div>
      <Table head={[xLabel, "Dates", "Respondents", ...series.map((s) => s.id)]} caption={`${title} by ${xLabel.toLowerCase()}`}>
        {data.waves.map((w, i) => (
          <tr key={w.wave}>
            <td className="px-4 py-2 font-medium">{w.wave}</td>
            <td className="px-4 py-2 text-ink-600">{w.from ?? "—"}{w.to && w.to !== w.from ? ` – ${w.to}` : ""}</td>
            <td className="px-4 py-2 text-ink-600">{w.respondents}</td>
            {series.map((s) => <td key={s.id} className="px-4 py-2">{pct(s.points[i]?.y, 1)}</td>)}
          </tr>
        ))}
      </Table>
    </div>
  );
}

export default function Wave({ projectQuestionId }: { projectQuestionId: number }) {
  const { questions, clientId, projectId } = useResults();
  const [, navigate] = useLocation();
  const { data } = useWaveData();
  const pq = questions.find((q) => q.id === projectQuestionId);
  const measureQs = questions.filter((q) => q.standardQuestionId !== null && q.standardQuestionId < 19 && q.question?.questionTypeId !== 3);
  if (!pq?.standardQuestionId) return <EmptyState title="Not a tracked measure">Waves are shown for the framework's measures.</EmptyState>;
  return (
    <div>
      <PageTitle title="Waves" subtitle="How each measure moves from wave to wave." />
      <div className="mb-4 max-w-xs">
        <label htmlFor="wave-measure" className="mb-1 block text-xs font-medium text-ink-600">Measure</label>
        <Select id="wave-measure" value={projectQuestionId} onChange={(e) => navigate(`~${resultsLink(clientId, projectId, `wave/${e.target.value}`)}`)}>
          {measureQs.map((q) => <option key={q.id} value={q.id}>{q.question?.questionTitle ?? q.question?.questionText}</option>)}
        </Select>
      </div>
      {!data ? <Skeleton className="h-80" /> : <WaveLines data={data} standardQuestionId={pq.standardQuestionId} />}
    </div>
  );
}
