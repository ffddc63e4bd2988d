// h2h/{tab}: two test options side by side; {tab} is the pair "a-b" (or 'measures' for the first two).
import { useLocation } from "wouter";
import { Top2Bars, pct } from "../../../components/charts/Charts";
import { EmptyState, Select, Skeleton, Table } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { testOptionName, useResults } from "../../../features/results/context";
import { useQualResults } from "../../../features/results/queries";
import { methodNote, PageTitle, sortMeasures } from "./MeasuresView";

export default function HeadToHead({ tab }: { tab: string }) {
  const { testOptions, clientId, projectId, confidence } = useResults();
  const [, navigate] = useLocation();
  const { data } = useQualResults();
  if (testOptions.length < 2) return <EmptyState title="Head to head needs two test options" />;
  const m = /^(\d+)-(\d+)$/.exec(tab);
  const a = m ? Number(m[1]) : testOptions[0]!.id;
  const b = m ? Number(m[2]) : testOptions[1]!.id;
  const go = (x: number, y: number) => navigate(`~${resultsLink(clientId, projectId, `h2h/${x}-${y}`)}`);
  const ms = data ? sortMeasures(data.measures) : [];
  const cells = ms.flatMap((mm) =>
    mm.results
      .filter((r) => r.testOptionId === a || r.testOptionId === b)
      .map((r) => {
        const other = r.vsOthers.find((o) => o.testOptionId === (r.testOptionId === a ? b : a));
        return {
          group: mm.title,
          series: testOptionName(testOptions, r.testOptionId),
          top2: r.top2,
          ci: r.ci as [number, number],
          n: r.n,
          sig: (other?.significant ? (other.diff > 0 ? 1 : -1) : 0) as -1 | 0 | 1,
        };
      }),
  );
  return (
    <div>
      <PageTitle title="Head to head" subtitle={`▲ / ▼: significantly above / below the other option. ${methodNote(data?.method, confidence)}`} />
      <div className="mb-4 grid max-w-xl grid-cols-2 gap-3">
        <div>
          <label htmlFor="h2h-a" className="mb-1 block text-xs font-medium text-ink-600">
            First option
          </label>
          <Select id="h2h-a" value={a} onChange={(e) => go(Number(e.target.value), b)}>
            {testOptions.map((o) => (
              <option key={o.id} value={o.id} disabled={o.id === b}>
                {o.conceptText}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <label htmlFor="h2h-b" className="mb-1 block text-xs font-medium text-ink-600">
            Second option
          </label>
          <Select id="h2h-b" value={b} onChange={(e) => go(a, Number(e.target.value))}>
            {testOptions.map((o) => (
              <option key={o.id} value={o.id} disabled={o.id === a}>
                {o.conceptText}
              </option>
            ))}
          </Select>
        </div>
      </div>
      {!data ? (
        <Skeleton className="h-80" />
      ) : (
        <div className="space-y-5">
          <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
            <Top2Bars title="Top-2-box, head to head" cells={cells} series={[testOptionName(testOptions, a), testOptionName(testOptions, b)]} xLegend="Measure" />
          </div>
          <Table head={["Measure", testOptionName(testOptions, a), testOptionName(testOptions, b), "Difference"]} caption="Head to head figures">
            {ms.map((mm) => {
              const ra = mm.results.find((r) => r.testOptionId === a);
              const rb = mm.results.find((r) => r.testOptionId === b);
              const d = ra?.vsOthers.find((o) => o.testOptionId === b);
              return (
                <tr key={mm.standardQuestionId}>
                  <td className="px-4 py-2 font-medium">{mm.title}</td>
                  <td className="px-4 py-2">{pct(ra?.top2, 1)}</td>
                  <td className="px-4 py-2">{pct(rb?.top2, 1)}</td>
                  <td className="px-4 py-2">
                    {d ? `${d.diff > 0 ? "+" : ""}${(d.diff * 100).toFixed(1)} pts${d.significant ? " (significant)" : ""}` : "—"}
                    {d ? (
                      <span className="block text-xs text-ink-500">
                        {d.paired ? "paired" : "independent"}, adjusted p {d.pAdjusted === null ? "—" : d.pAdjusted < 0.001 ? "< 0.001" : d.pAdjusted.toFixed(3)}
                      </span>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </Table>
        </div>
      )}
    </div>
  );
}
