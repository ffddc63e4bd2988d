// The results charts on @nivo: grouped top-2-box bars with the benchmark line, confidence
// intervals and significance marks; stacked shares; horizontal bars; lines with vertical markers.
// Every chart has axis legends and an accessible name (role img, aria-label) and uses the
// colour-vision-deficiency-checked palette of features/results/palette.ts. This file is imported
// only by the lazily loaded results and group route chunks.
import { markerSides } from "./markers";
import { wrapLabel } from "./labels";
import { ResponsiveBar, type BarCustomLayerProps, type BarDatum } from "@nivo/bar";
import { ResponsiveLine } from "@nivo/line";
import { useMemo, useSyncExternalStore, type ReactNode } from "react";
import { BENCHMARK_COLOUR, NEGATIVE, POSITIVE, seriesColour } from "../../features/results/palette";
import { keyedBy } from "../../lib/keys";

const theme = {
  text: { fontSize: 12, fill: "#3d3d52" },
  axis: { legend: { text: { fontSize: 12, fontWeight: 600, fill: "#27273a" } }, ticks: { text: { fontSize: 11, fill: "#52526a" } } },
  grid: { line: { stroke: "#eeeef2" } },
  tooltip: { container: { fontSize: 12 } },
};

// A person who asked for reduced motion gets no animation: nivo's bars, ticks and lines otherwise
// glide to their new places on every resize or filter change (WCAG 2.3.3, animation from
// interactions). The browser tests run so (playwright.config.ts), and a chart resized to a phone's
// width is then drawn at once where the results crawl reads it.
const REDUCED_MOTION = "(prefers-reduced-motion: reduce)";
function subscribeMotion(onChange: () => void) {
  const m = window.matchMedia(REDUCED_MOTION);
  m.addEventListener("change", onChange);
  return () => m.removeEventListener("change", onChange);
}
function useAnimate(): boolean {
  return !useSyncExternalStore(subscribeMotion, () => window.matchMedia(REDUCED_MOTION).matches, () => false);
}

export const pct = (x: number | null | undefined, digits = 0) => (x === null || x === undefined || Number.isNaN(x) ? "—" : `${(x * 100).toFixed(digits)}%`);

export function ChartFrame({ title, height = 320, children, legend }: { title: string; height?: number; children: ReactNode; legend?: { label: string; colour: string; kind?: "line" }[] }) {
  return (
    <figure className="min-w-0">
      <figcaption className="mb-2 text-sm font-semibold text-ink-900">{title}</figcaption>
      {legend?.length ? (
        <ul className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-ink-700" aria-label={`${title}: legend`}>
          {legend.map((l) => (
            <li key={l.label} className="flex items-center gap-1.5">
              {l.kind === "line" ? (
                <span className="inline-block h-0.5 w-4" style={{ background: l.colour }} aria-hidden="true" />
              ) : (
                <span className="inline-block size-3 rounded-sm" style={{ background: l.colour }} aria-hidden="true" />
              )}
              {l.label}
            </li>
          ))}
        </ul>
      ) : null}
      <div style={{ height }} className="w-full">
        {children}
      </div>
    </figure>
  );
}

export interface Top2Cell {
  /** bar group (x axis) */
  group: string;
  /** series within the group */
  series: string;
  top2: number;
  /** the confidence interval [low, high] */
  ci?: number[] | null;
  /** vs the benchmark: +1 significantly above, -1 below, 0 not significant */
  sig?: -1 | 0 | 1;
  smallBase?: boolean;
  n?: number;
  /** the benchmark's top-2-box (0..1) for this bar's measure; null or absent draws no line */
  benchmark?: number | null;
}

/** Top2Bars' layer over the bars: CI whiskers, ▲/▼ marks and the benchmark line of each bar's cell. */
function Top2Overlay({ bars, yScale, byKey }: BarCustomLayerProps<BarDatum> & { byKey: Map<string, Top2Cell> }) {
  const y = (v: number) => yScale(v * 100) ?? 0;
  return (
    <g>
      {bars.map((b) => {
        const c = byKey.get(`${b.data.indexValue}|${b.data.id}`);
        if (!c) return null;
        const cx = b.x + b.width / 2;
        return (
          <g key={b.key}>
            {c.ci ? (
              <g stroke={BENCHMARK_COLOUR} strokeWidth={1.2}>
                <line x1={cx} x2={cx} y1={y(c.ci[0])} y2={y(c.ci[1])} />
                <line x1={cx - 4} x2={cx + 4} y1={y(c.ci[0])} y2={y(c.ci[0])} />
                <line x1={cx - 4} x2={cx + 4} y1={y(c.ci[1])} y2={y(c.ci[1])} />
              </g>
            ) : null}
            {c.sig ? (
              <text x={cx} y={y(c.ci ? c.ci[1] : c.top2) - 6} textAnchor="middle" fontSize={11} fill={c.sig > 0 ? POSITIVE : NEGATIVE} data-sig={c.sig > 0 ? "above" : "below"}>
                {c.sig > 0 ? "▲" : "▼"}
              </text>
            ) : null}
            {c.benchmark !== null && c.benchmark !== undefined ? (
              <line x1={b.x - 2} x2={b.x + b.width + 2} y1={y(c.benchmark)} y2={y(c.benchmark)} stroke={BENCHMARK_COLOUR} strokeWidth={2} strokeDasharray="5 3" data-benchmark={c.benchmark} />
            ) : null}
          </g>
        );
      })}
    </g>
  );
}

/** Grouped top-2-box bars per group and series, with the benchmark line across each bar, CI whiskers and ▲/▼ marks. */
export function Top2Bars({ title, cells, series, xLegend, height = 360 }: {
  title: string;
  cells: Top2Cell[];
  series: string[];
  xLegend: string;
  height?: number;
}) {
  const animate = useAnimate();
  const benchmarks = cells.some((c) => c.benchmark !== null && c.benchmark !== undefined);
  const groups = [...new Set(cells.map((c) => c.group))];
  const data = groups.map((g) => {
    const row: BarDatum = { group: g };
    for (const c of cells) if (c.group === g) row[c.series] = Math.round(c.top2 * 1000) / 10;
    return row;
  });
  // nivo draws a function layer as a component: one kept while the cells are the same, so the
  // overlay is not mounted afresh on each render.
  const byKey = useMemo(() => new Map(cells.map((c) => [`${c.group}|${c.series}`, c])), [cells]);
  const overlay = useMemo(() => (p: BarCustomLayerProps<BarDatum>) => <Top2Overlay {...p} byKey={byKey} />, [byKey]);
  const rotate = groups.length > 4;
  // Tick labels are cut to what a group's band holds even on a phone: one or two groups have room
  // for a whole measure name ("In-store visibility"), more share the width.
  const tickChars = groups.length === 1 ? 40 : groups.length === 2 ? 24 : 18;
  const label = `${title}: top-2-box percentage by ${xLegend.toLowerCase()}${benchmarks ? ", with the benchmark as a dashed line" : ""}`;
  return (
    <ChartFrame
      title={title}
      height={height}
      legend={[...series.map((s, i) => ({ label: s, colour: seriesColour(i) })), ...(benchmarks ? [{ label: "Benchmark", colour: BENCHMARK_COLOUR, kind: "line" as const }] : [])]}
    >
      <ResponsiveBar
        data={data}
        keys={series}
        indexBy="group"
        groupMode="grouped"
        margin={{ top: 20, right: 12, bottom: rotate ? 86 : 56, left: 56 }}
        padding={0.25}
        innerPadding={2}
        valueScale={{ type: "linear", min: 0, max: 100 }}
        colors={({ id }) => seriesColour(series.indexOf(String(id)))}
        enableLabel
        label={(d) => `${Math.round(Number(d.value))}`}
        labelSkipHeight={14}
        labelSkipWidth={18}
        labelTextColor="#ffffff"
        axisLeft={{ legend: "Top-2-box (%)", legendPosition: "middle", legendOffset: -44, tickValues: [0, 25, 50, 75, 100] }}
        axisBottom={{ legend: xLegend, legendPosition: "middle", legendOffset: rotate ? 76 : 44, truncateTickAt: tickChars, tickRotation: rotate ? -30 : 0 }}
        layers={["grid", "axes", "bars", overlay, "markers", "legends"]}
        theme={theme}
        animate={animate}
        role="img"
        ariaLabel={label}
        tooltip={({ id, indexValue, value }) => {
          const c = byKey.get(`${indexValue}|${id}`);
          return (
            <div className="rounded-md bg-white px-2 py-1 text-xs shadow ring-1 ring-ink-200">
              <strong>{String(id)}</strong> · {String(indexValue)}: {value}%{c?.ci ? ` (${pct(c.ci[0])}–${pct(c.ci[1])})` : ""}
              {c?.n !== undefined ? ` · n=${c.n}` : ""}
              {c?.smallBase ? " · small base" : ""}
            </div>
          );
        }}
      />
    </ChartFrame>
  );
}

/** Stacked shares (0..1) per group, e.g. the answer distribution of each test option. */
export function StackedBars({ title, rows, keys, xLegend, yLegend = "Share of respondents (%)", height = 320, layout = "vertical" }: {
  title: string;
  rows: { group: string; values: Record<string, number> }[];
  keys: string[];
  xLegend: string;
  yLegend?: string;
  height?: number;
  layout?: "vertical" | "horizontal";
}) {
  const animate = useAnimate();
  const data = rows.map((r) => {
    const d: BarDatum = { group: r.group };
    for (const k of keys) d[k] = Math.round((r.values[k] ?? 0) * 1000) / 10;
    return d;
  });
  const horizontal = layout === "horizontal";
  return (
    <ChartFrame title={title} height={height} legend={keys.map((k, i) => ({ label: k, colour: seriesColour(i) }))}>
      <ResponsiveBar
        data={data}
        keys={keys}
        indexBy="group"
        layout={layout}
        groupMode="stacked"
        margin={horizontal ? { top: 8, right: 16, bottom: 48, left: 150 } : { top: 12, right: 12, bottom: 56, left: 56 }}
        padding={0.3}
        valueScale={{ type: "linear", min: 0, max: 100 }}
        colors={({ id }) => seriesColour(keys.indexOf(String(id)))}
        label={(d) => `${Math.round(Number(d.value))}`}
        labelSkipHeight={14}
        labelSkipWidth={22}
        labelTextColor="#ffffff"
        axisLeft={horizontal ? { legend: xLegend, legendPosition: "middle", legendOffset: -140, truncateTickAt: 20 } : { legend: yLegend, legendPosition: "middle", legendOffset: -44 }}
        axisBottom={horizontal ? { legend: yLegend, legendPosition: "middle", legendOffset: 38 } : { legend: xLegend, legendPosition: "middle", legendOffset: 44, truncateTickAt: 14 }}
        theme={theme}
        animate={animate}
        role="img"
        ariaLabel={`${title}: ${yLegend.toLowerCase()} by ${xLegend.toLowerCase()}`}
      />
    </ChartFrame>
  );
}

/**
 * One question's answer shares per group (test option, project): stacked to 100% when each
 * respondent gives one answer; bars side by side per group when several answers were allowed (the
 * shares then add up to more than 100%) or when there is a single group.
 */
export function AnswerShares({ rows, answers, by, multiple }: { rows: { group: string; values: Record<string, number> }[]; answers: string[]; by: string; multiple: boolean }) {
  return (
    <>
      {rows.length === 1 || multiple ? (
        rows.map((r) => (
          <HBars key={r.group} title={rows.length === 1 ? "Share of respondents by answer" : `${r.group}: share of respondents by answer`} items={answers.map((a) => ({ label: a, value: r.values[a] ?? 0 }))} xLegend="Share of respondents (%)" yLegend="Answer" />
        ))
      ) : (
        <StackedBars title={`Answers by ${by.toLowerCase()}`} rows={rows} keys={answers} xLegend={by} layout="horizontal" height={Math.max(200, 60 + rows.length * 44)} />
      )}
      {multiple ? <p className="text-xs text-ink-500">Several answers were allowed, so shares add up to more than 100%.</p> : null}
    </>
  );
}

/** A left-axis tick whose label wraps onto its lines (labels.ts), centred on the bar; the whole label on hover. */
function WrappedTick({ x, y, textX, lines, full }: { x: number; y: number; textX: number; lines: string[]; full: string }) {
  return (
    <g transform={`translate(${x},${y})`}>
      <line x1={0} x2={-5} y1={0} y2={0} stroke="#777777" strokeWidth={1} />
      <text textAnchor="end" dominantBaseline="central" style={theme.axis.ticks.text}>
        <title>{full}</title>
        {keyedBy(lines, (l) => l).map(([k, l], i) => (
          <tspan key={k} x={textX} dy={i === 0 ? `${-(lines.length - 1) * 0.6}em` : "1.2em"}>
            {l}
          </tspan>
        ))}
      </text>
    </g>
  );
}

/** Horizontal bars of one value per item (shares 0..1 as %, or raw values). */
export function HBars({ title, items, xLegend, yLegend, percent = true, height, colourIndex = 0 }: {
  title: string;
  items: { label: string; value: number }[];
  xLegend: string;
  yLegend: string;
  percent?: boolean;
  height?: number;
  colourIndex?: number;
}) {
  const animate = useAnimate();
  const data = [...items].reverse().map((i) => ({ label: i.label, value: percent ? Math.round(i.value * 1000) / 10 : Math.round(i.value * 1000) / 1000 }));
  const wrapped = new Map(items.map((i) => [i.label, wrapLabel(i.label)]));
  const labels = [...wrapped.values()];
  const longest = Math.max(4, ...labels.flat().map((l) => l.length));
  const twoLines = labels.some((l) => l.length > 1);
  // About 6.6 px a character at the tick font (wide letters like "W" and "M" included), so the
  // longest label stays clear of the axis legend ("Manawatū-Whanganui" touched it at 6.2).
  const left = Math.min(180, 36 + longest * 6.6);
  return (
    <ChartFrame title={title} height={height ?? Math.max(140, 40 + items.length * (twoLines ? 40 : 30))}>
      <ResponsiveBar
        data={data}
        keys={["value"]}
        indexBy="label"
        layout="horizontal"
        margin={{ top: 6, right: 24, bottom: 46, left }}
        padding={0.3}
        valueScale={percent ? { type: "linear", min: 0, max: 100 } : { type: "linear", min: 0 }}
        colors={[seriesColour(colourIndex)]}
        label={(d) => (percent ? `${Math.round(Number(d.value))}%` : String(d.value))}
        labelSkipWidth={28}
        labelTextColor="#ffffff"
        axisLeft={{ legend: yLegend, legendPosition: "middle", legendOffset: -(left - 12), renderTick: (t) => <WrappedTick x={t.x} y={t.y} textX={t.textX} lines={wrapped.get(String(t.value)) ?? [String(t.value)]} full={String(t.value)} /> }}
        axisBottom={{ legend: xLegend, legendPosition: "middle", legendOffset: 36, tickValues: 5 }}
        theme={theme}
        animate={animate}
        role="img"
        ariaLabel={`${title}: ${xLegend.toLowerCase()} by ${yLegend.toLowerCase()}`}
      />
    </ChartFrame>
  );
}

export interface LineSeriesInput {
  id: string;
  points: { x: number | string; y: number | null }[];
  dashed?: boolean;
}

/** Lines over a numeric or categorical x axis, with optional vertical markers (e.g. price points). */
export function Lines({ title, series, xLegend, yLegend, percent = true, height = 320, markers = [], xType = "linear", yMax }: {
  title: string;
  series: LineSeriesInput[];
  xLegend: string;
  yLegend: string;
  percent?: boolean;
  height?: number;
  markers?: { x: number; label: string }[];
  xType?: "linear" | "point";
  yMax?: number;
}) {
  const animate = useAnimate();
  const data = series.map((s) => ({ id: s.id, data: s.points.map((p) => ({ x: p.x, y: p.y === null ? null : percent ? Math.round(p.y * 1000) / 10 : p.y })) }));
  const dashed = new Set(series.filter((s) => s.dashed).map((s) => s.id));
  return (
    <ChartFrame title={title} height={height} legend={series.map((s, i) => ({ label: s.id, colour: seriesColour(i), kind: "line" as const }))}>
      <ResponsiveLine
        data={data}
        margin={{ top: 24, right: 24, bottom: 56, left: 60 }}
        xScale={xType === "linear" ? { type: "linear", min: "auto", max: "auto" } : { type: "point" }}
        yScale={{ type: "linear", min: 0, max: yMax ?? (percent ? 100 : "auto") }}
        colors={series.map((_, i) => seriesColour(i))}
        lineWidth={2.5}
        pointSize={xType === "point" ? 7 : 0}
        enableGridX={false}
        useMesh
        axisLeft={{ legend: yLegend, legendPosition: "middle", legendOffset: -48 }}
        axisBottom={{ legend: xLegend, legendPosition: "middle", legendOffset: 42 }}
        markers={markerSides(markers).map((m) => ({
          axis: "x" as const,
          value: m.x,
          lineStyle: { stroke: BENCHMARK_COLOUR, strokeWidth: 1.5, strokeDasharray: "4 3" },
          legend: m.label,
          legendPosition: m.side === "left" ? ("top-left" as const) : ("top-right" as const),
          legendOrientation: "vertical" as const,
          textStyle: { fontSize: 11, fill: BENCHMARK_COLOUR },
        }))}
        layers={[
          "grid", "markers", "axes", "areas",
          ({ series: s, lineGenerator, xScale, yScale }) => (
            <g>
              {s.map((line) => (
                <path
                  key={String(line.id)}
                  d={lineGenerator(line.data.filter((d) => d.data.y !== null).map((d) => ({ x: (xScale as (v: unknown) => number)(d.data.x), y: (yScale as (v: unknown) => number)(d.data.y) }))) ?? undefined}
                  fill="none"
                  stroke={line.color}
                  strokeWidth={2.5}
                  strokeDasharray={dashed.has(String(line.id)) ? "6 4" : undefined}
                />
              ))}
            </g>
          ),
          "points", "slices", "mesh", "legends",
        ]}
        theme={theme}
        animate={animate}
        role="img"
        ariaLabel={`${title}: ${yLegend.toLowerCase()} by ${xLegend.toLowerCase()}`}
      />
    </ChartFrame>
  );
}
