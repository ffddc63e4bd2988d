// price-sensitivity: the four Van Westendorp curves per test option with the price points
// (optimal, indifferent, the acceptable range) and SPEC 9's tooltips; NMS trial and revenue when asked.
import { useState } from "react";
import { Lines } from "../../../components/charts/Charts";
import { EmptyState, Select, Skeleton } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { usePriceResults } from "../../../features/results/queries";
import { PageTitle } from "./MeasuresView";
import { formatCount } from "../../../lib/numbers";

/** SPEC 9's tooltips, as the API also answers them. */
export const PRICE_TOOLTIPS = {
  optimal: "The sweet spot. The price that feels just right, not too cheap or expensive.",
  indifferent: "Neutral ground. People are willing to pay this, but it doesn’t feel like a deal or a stretch.",
  acceptable: "What feels fair. Most people would buy at this price - it’s seen as trustworthy and good value.",
};

function PricePoint({ label, value, tooltip, money }: { label: string; value: string; tooltip: string; money?: boolean }) {
  const id = `tip-${label.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <div className="group relative rounded-xl border border-ink-200 bg-white p-3 shadow-sm" tabIndex={0} aria-describedby={id}>
      <p className="text-xs text-ink-500">
        {label}{" "}
        <span aria-hidden="true" className="ml-0.5 rounded-full border border-ink-300 px-1 text-[10px]">
          ?
        </span>
      </p>
      <p className={money ? "text-xl font-semibold text-ink-900" : "text-lg font-semibold text-ink-900"}>{value}</p>
      <p
        id={id}
        role="tooltip"
        className="pointer-events-none absolute top-full left-0 z-10 mt-1 hidden w-64 rounded-md bg-ink-900 p-2 text-xs text-white shadow-lg group-hover:block group-focus:block"
      >
        {tooltip}
      </p>
    </div>
  );
}

export default function PriceSensitivity() {
  const { testOptions } = useResults();
  const { data } = usePriceResults();
  const [optionIdx, setOptionIdx] = useState(0);
  if (!data) return <Skeleton className="h-96" />;
  if (!data.value.length) return <EmptyState title="No price answers">This test did not ask the price questions, or no respondent matches the filters.</EmptyState>;
  const r = data.value[Math.min(optionIdx, data.value.length - 1)]!;
  const sym = data.currencySymbol ?? "";
  const money = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${sym}${x.toFixed(2)}`);
  const c = r.curves;
  if (!c) return <EmptyState title="Too few valid price answers">No respondent gave four prices in order for these filters.</EmptyState>;
  const trial = c.trial ?? [];
  const curve = (id: string, ys: number[], dashed = false) => ({ id, dashed, points: c.price.map((p, i) => ({ x: p, y: ys[i] ?? null })) });
  const markers = [
    r.opp !== null ? { x: r.opp, label: "Optimal" } : null,
    r.ipp !== null ? { x: r.ipp, label: "Indifferent" } : null,
    r.pmc !== null ? { x: r.pmc, label: "PMC" } : null,
    r.pme !== null ? { x: r.pme, label: "PME" } : null,
  ].filter((m): m is { x: number; label: string } => m !== null);
  return (
    <div>
      <PageTitle
        title="Price sensitivity"
        subtitle={`Van Westendorp price sensitivity meter (crossings by ${r.interpolation} interpolation); ${formatCount(r.n)} valid answers, ${formatCount(r.invalid)} out of order left out.`}
      />
      {data.value.length > 1 ? (
        <div className="mb-4 max-w-xs">
          <label htmlFor="psm-option" className="mb-1 block text-xs font-medium text-ink-600">
            Test option
          </label>
          <Select id="psm-option" value={optionIdx} onChange={(e) => setOptionIdx(Number(e.target.value))}>
            {data.value.map((v, i) => (
              <option key={v.testOptionId ?? i} value={i}>
                {v.conceptText ?? testOptions.find((o) => o.id === v.testOptionId)?.conceptText ?? `Option ${i + 1}`}
              </option>
            ))}
          </Select>
        </div>
      ) : null}
      <div className="mb-5 grid gap-3 sm:grid-cols-3" data-testid="price-points">
        <PricePoint label="Optimal price" value={money(r.opp)} tooltip={PRICE_TOOLTIPS.optimal} money />
        <PricePoint label="Indifferent price" value={money(r.ipp)} tooltip={PRICE_TOOLTIPS.indifferent} money />
        <PricePoint label="Acceptable range" value={r.acceptableRange ? `${money(r.acceptableRange[0])} – ${money(r.acceptableRange[1])}` : "—"} tooltip={PRICE_TOOLTIPS.acceptable} />
      </div>
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="psm-chart">
        <Lines
          title="Van Westendorp curves"
          series={[
            curve("Too cheap", c.tooCheap),
            curve("Cheap", c.cheap),
            curve("Expensive", c.expensive),
            curve("Too expensive", c.tooExpensive),
            curve("Not cheap", c.notCheap, true),
            curve("Not expensive", c.notExpensive, true),
          ]}
          xLegend={`Price (${data.currencyCode ?? sym})`}
          yLegend="Share of respondents (%)"
          markers={markers}
          height={380}
        />
      </div>
      {trial.some((t) => t > 0) && r.trialOptimal && r.revenueOptimal ? (
        <div className="mt-5 rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
          <Lines
            title="Newton-Miller-Smith: trial by price"
            series={[{ id: "Trial", points: c.price.map((p, i) => ({ x: p, y: trial[i] ?? null })) }]}
            xLegend={`Price (${data.currencyCode ?? sym})`}
            yLegend="Expected trial (%)"
            markers={[
              { x: r.trialOptimal!.price, label: "Max trial" },
              { x: r.revenueOptimal!.price, label: "Max revenue" },
            ]}
          />
          <p className="mt-2 text-sm text-ink-700">
            Most trial at {money(r.trialOptimal!.price)}; most revenue at {money(r.revenueOptimal!.price)}.
          </p>
        </div>
      ) : null}
    </div>
  );
}
