// markets: the market-by-market table (each measure and test option in each market, with its base)
// beside the all-markets total, and significance between markets: a cell's letters are the markets
// significantly lower on the same measure and option (independent samples, the table's own
// multiple-comparison family). docs/statistics.md "Markets".
import { pct } from "../../../components/charts/Charts";
import { Badge, Button, EmptyState, Skeleton, Table } from "../../../components/ui";
import { ALL_MARKETS, changeRegion } from "../../../features/results/filters";
import { testOptionName, useResults } from "../../../features/results/context";
import { lowerMarkets, marketLetters, weightingNote } from "../../../features/results/markets";
import { useQualResults } from "../../../features/results/queries";
import { PageTitle, measureOrder } from "./MeasuresView";
import { formatCount } from "../../../lib/numbers";

export default function Markets() {
  const { project, regionIds, regionId, allMarkets, filters, setFilters, testOptions, confidence } = useResults();
  const { data, isLoading } = useQualResults();
  const name = (regionId: number) => project.projectsRegions.find((r) => r.regionId === regionId)?.region?.regionName ?? `Region ${regionId}`;
  const letters = marketLetters(regionIds);
  const title = <PageTitle title="Markets" subtitle="Each measure market by market, beside the total across all markets." />;
  // One market picked: its figures alone would leave every other market's column empty.
  if (regionIds.length > 1 && !allMarkets) {
    return (
      <div>
        {title}
        <EmptyState title={`Showing ${name(regionId)} only`} action={<Button onClick={() => setFilters(changeRegion(filters, ALL_MARKETS))}>Compare all markets</Button>}>
          This page compares the project's {regionIds.length} markets side by side. The Market filter is set to {name(regionId)}: choose All markets to compare them (it clears the demographic and
          question filters, like every change of market).
        </EmptyState>
      </div>
    );
  }
  if (!data)
    return (
      <div>
        {title}
        {isLoading ? <Skeleton className="h-80" /> : null}
      </div>
    );
  const markets = regionIds.map((r) => data.markets.find((m) => m.regionId === r) ?? { regionId: r, measures: [] });
  const measures = [...data.measures].sort((a, b) => measureOrder(a.standardQuestionId) - measureOrder(b.standardQuestionId) || a.standardQuestionId - b.standardQuestionId);
  if (!measures.length)
    return (
      <div>
        {title}
        <EmptyState title="No results for these filters">No respondent in these filters answered a scaled measure.</EmptyState>
      </div>
    );
  const total = data.allMarkets;
  const m = data.marketsMethod;
  const adj = m.adjust === "none" ? "no multiple-comparison adjustment" : `${m.adjustName} adjustment over the table's ${m.tests} tests`;
  return (
    <div className="space-y-4">
      {title}
      <p className="rounded-lg bg-brand-50 px-3 py-2 text-sm text-brand-900" data-testid="weighting-note">
        {weightingNote(total, name)} The total column weights each market
        {total.weighting === "population" ? "'s respondents up or down to its share of the markets' population" : " by its share of the sample"}.
      </p>
      {measures.map((ms) => (
        <section key={ms.standardQuestionId} aria-labelledby={`market-measure-${ms.standardQuestionId}`}>
          <h3 id={`market-measure-${ms.standardQuestionId}`} className="mb-1.5 text-sm font-semibold text-ink-900">
            {ms.title}
          </h3>
          <Table dense caption={`${ms.title}: top-2-box by market`} head={["Test option", ...markets.map((x) => `${name(x.regionId)} (${letters.get(x.regionId)})`), "All markets"]}>
            {ms.results.map((r) => {
              const totalCell = total.measures.find((t) => t.standardQuestionId === ms.standardQuestionId)?.results.find((x) => x.testOptionId === r.testOptionId);
              return (
                <tr key={`${ms.standardQuestionId}-${r.testOptionId}`} data-testid="market-row">
                  <td className="px-2 py-2 font-medium text-ink-900">{testOptionName(testOptions, r.testOptionId)}</td>
                  {markets.map((mk) => {
                    const c = mk.measures.find((x) => x.standardQuestionId === ms.standardQuestionId)?.results.find((x) => x.testOptionId === r.testOptionId);
                    if (!c)
                      return (
                        <td key={mk.regionId} className="px-2 py-2 text-ink-500">
                          —
                        </td>
                      );
                    const lower = lowerMarkets(c, letters);
                    return (
                      <td key={mk.regionId} className="px-2 py-2 whitespace-nowrap">
                        <span className="text-ink-900">{pct(c.top2, 1)}</span>
                        {lower.length ? (
                          <>
                            <span className="ml-1 font-semibold text-sky-800" data-testid="market-letters" aria-hidden="true">
                              {lower.join("")}
                            </span>
                            <span className="sr-only">{` significantly above ${lower.join(", ")}`}</span>
                          </>
                        ) : null}
                        <span className="block text-xs text-ink-500">n {formatCount(c.n)}</span>
                        {c.smallBase ? <Badge tone="amber">low base</Badge> : null}
                      </td>
                    );
                  })}
                  <td className="bg-ink-50 px-2 py-2 whitespace-nowrap">
                    {totalCell ? (
                      <>
                        <span className="font-medium text-ink-900">{pct(totalCell.top2, 1)}</span>
                        <span className="block text-xs text-ink-500">n {totalCell.n}</span>
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
        </section>
      ))}
      <p className="text-xs text-ink-600" data-testid="method-note">
        Letters: the markets significantly lower on the same measure and test option at {confidence}% (markets compared with each other as independent samples, not with the total), after {adj}. Low
        base: n eff below 30.
      </p>
      <ul className="text-xs text-ink-500">
        {total.shares.map((s) => (
          <li key={s.regionId}>
            {name(s.regionId)}: {s.population ? `population ${s.population.toLocaleString()} (${s.source})` : "no population figure"}; {pct(s.sampleShare, 1)} of the weighted sample.
          </li>
        ))}
      </ul>
    </div>
  );
}
