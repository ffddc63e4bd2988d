// market-reach/{tab?}: TURF. 'reach' (default): the best set's reach and frequency by set size;
// 'combinations': the top combinations of each size.
import { Lines, pct } from "../../../components/charts/Charts";
import { EmptyState, Skeleton, Table, TabLinks } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { useResults } from "../../../features/results/context";
import { useReachResults } from "../../../features/results/queries";
import { PageTitle } from "./MeasuresView";

export default function MarketReach({ tab }: { tab?: string }) {
  const { clientId, projectId } = useResults();
  const { data } = useReachResults();
  const current = tab === "combinations" ? "combinations" : "reach";
  const tabs = (
    <TabLinks
      label="Market reach views"
      active={current}
      tabs={[
        { id: "reach", label: "Reach and frequency", href: `~${resultsLink(clientId, projectId, "market-reach")}` },
        { id: "combinations", label: "Top combinations", href: `~${resultsLink(clientId, projectId, "market-reach/combinations")}` },
      ]}
    />
  );
  if (!data) return <Skeleton className="h-96" />;
  if (!data.byK.length) return <EmptyState title="No market reach answers for these filters" />;
  const best = data.byK.map((k) => ({ k: k.k, set: k.sets[0] }));
  return (
    <div>
      <PageTitle title="Market reach" subtitle={`TURF over ${data.respondents} respondents: the share reached by at least ${data.reachDepth} item${data.reachDepth === 1 ? "" : "s"} of a set.`} />
      {tabs}
      {current === "reach" ? (
        <div className="space-y-5">
          <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="turf-chart">
            <Lines
              title="Best set: reach by number of items"
              series={[{ id: "Reach", points: best.map((b) => ({ x: b.k, y: b.set?.reach ?? null })) }]}
              xLegend="Items in the set"
              yLegend="Reach (%)"
              xType="point"
            />
          </div>
          <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
            <Lines
              title="Best set: frequency by number of items"
              series={[{ id: "Frequency", points: best.map((b) => ({ x: b.k, y: b.set?.frequency ?? null })) }]}
              xLegend="Items in the set"
              yLegend="Items accepted per respondent"
              percent={false}
              xType="point"
            />
          </div>
          <Table head={["Items", "Best set", "Reach", "Frequency"]} caption="Best set per size">
            {best.map((b) => (
              <tr key={b.k}>
                <td className="px-4 py-2">{b.k}</td>
                <td className="px-4 py-2 font-medium">{b.set?.items.join(", ")}</td>
                <td className="px-4 py-2">{pct(b.set?.reach, 1)}</td>
                <td className="px-4 py-2">{b.set?.frequency.toFixed(2)}</td>
              </tr>
            ))}
          </Table>
        </div>
      ) : (
        <div className="space-y-5">
          {data.byK.map((k) => (
            <div key={k.k}>
              <h3 className="mb-2 text-sm font-semibold text-ink-900">
                {k.k} item{k.k === 1 ? "" : "s"}{" "}
                <span className="font-normal text-ink-500">
                  ({k.method}, {k.evaluated} sets evaluated)
                </span>
              </h3>
              <Table head={["Rank", "Combination", "Reach", "Frequency"]} caption={`Top combinations of ${k.k}`}>
                {k.sets.map((s, i) => (
                  <tr key={s.optionIds.join("-")}>
                    <td className="px-4 py-2">{i + 1}</td>
                    <td className="px-4 py-2 font-medium">{s.items.join(", ")}</td>
                    <td className="px-4 py-2">{pct(s.reach, 1)}</td>
                    <td className="px-4 py-2">{s.frequency.toFixed(2)}</td>
                  </tr>
                ))}
              </Table>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
