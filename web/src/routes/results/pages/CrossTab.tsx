// crosstab: every measure or question (the rows) by a banner of demographics, markets, questions and
// filter sets (the columns), for the filters on screen, with column-letter significance: a cell's
// letters are the columns of the same banner variable significantly lower (Responses/CrossTab;
// docs/statistics.md "Cross-tabs").
import { Fragment, useMemo } from "react";
import { pct } from "../../../components/charts/Charts";
import { Badge, EmptyState, Select, Skeleton } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { useCrossTab, useQualResults } from "../../../features/results/queries";
import { TEXT_TYPE, isPriceQuestion, questionLabel } from "../../../features/results/questions";
import { useSegments, useSystemOptions } from "../FilterSidebar";
import { PageTitle } from "./MeasuresView";
import { formatCount } from "../../../lib/numbers";

/** The API's limits (crosstab.service.ts): a banner of at most 8 variables. */
const MAX_VARIABLES = 8;

export default function CrossTab() {
  const { regionId, regionIds, allMarkets, questions, projectId, search, setView, confidence } = useResults();
  const { data: qual } = useQualResults();
  const { data: sysOpts } = useSystemOptions(regionId);
  const { data: segments } = useSegments(projectId);
  const optionQuestions = questions.filter(
    (q) => q.standardQuestionId === null && q.question && q.question.questionTypeId !== TEXT_TYPE && q.question.questionOptions.length > 0 && !isPriceQuestion(q.standardQuestionId),
  );
  const stubs = [
    ...(qual?.measures ?? []).map((m) => ({ value: `measure:${m.standardQuestionId}`, label: `${m.title} (top-2-box)` })),
    ...optionQuestions.map((q) => ({ value: `question:${q.id}`, label: questionLabel(q) })),
  ];
  const demographics = useMemo(() => {
    const m = new Map<number, { id: number; label: string; sort: number }>();
    for (const o of sysOpts?.value ?? []) if (o.systemQuestion) m.set(o.systemQuestion.id, { id: o.systemQuestion.id, label: o.systemQuestion.questionLabel, sort: o.systemQuestion.sortOrder ?? 0 });
    return [...m.values()].sort((a, b) => a.sort - b.sort);
  }, [sysOpts]);
  const candidates: { value: string; label: string; group: string }[] = [
    ...demographics.map((d) => ({ value: `demographic:${d.id}`, label: d.label, group: "Demographics" })),
    ...(regionIds.length > 1 ? [{ value: "market", label: "Market", group: "Markets" }] : []),
    ...optionQuestions.map((q) => ({ value: `question:${q.id}`, label: questionLabel(q), group: "Questions" })),
    ...(segments?.value ?? []).map((s) => ({ value: `segment:${s.id}`, label: s.name, group: "Filter sets" })),
  ];
  // Until the measures are known, nothing is chosen (a question would flash in first).
  const rows = !qual ? null : typeof search.xrows === "string" && stubs.some((s) => s.value === search.xrows) ? search.xrows : (stubs[0]?.value ?? null);
  const defaultBanner = ["demographic:51", "demographic:45", ...(allMarkets ? ["market"] : [])];
  const chosen = Array.isArray(search.xbanner) ? search.xbanner.filter((b): b is string => typeof b === "string") : defaultBanner;
  const banner = chosen.filter((b) => candidates.some((c) => c.value === b) || !sysOpts);
  const variables = banner.filter((b) => !b.startsWith("segment:")).length + (banner.some((b) => b.startsWith("segment:")) ? 1 : 0);
  const { data, error, isLoading } = useCrossTab(rows, banner.length ? banner.join(",") : null);
  const toggle = (v: string) => setView({ xbanner: JSON.stringify(banner.includes(v) ? banner.filter((b) => b !== v) : [...banner, v]) });
  const groups = [...new Set(candidates.map((c) => c.group))];
  return (
    <div className="space-y-4">
      <PageTitle title="Cross-tabs" subtitle="A measure or question by the groups you choose, with significance letters." />
      <div className="grid gap-4 rounded-xl border border-ink-200 bg-white p-4 shadow-sm md:grid-cols-[minmax(0,18rem)_minmax(0,1fr)]">
        <div>
          <label htmlFor="xtab-rows" className="mb-1 block text-xs font-medium text-ink-600">
            Rows
          </label>
          <Select id="xtab-rows" value={rows ?? ""} onChange={(e) => setView({ xrows: e.target.value })}>
            {stubs.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </Select>
        </div>
        <fieldset>
          <legend className="mb-1 text-xs font-medium text-ink-600">Columns (banner), up to {MAX_VARIABLES}</legend>
          <div className="flex flex-wrap gap-x-5 gap-y-2">
            {groups.map((g) => (
              <div key={g} className="min-w-0">
                <p className="text-xs text-ink-500">{g}</p>
                <div className="flex flex-wrap gap-x-3 gap-y-1">
                  {candidates
                    .filter((c) => c.group === g)
                    .map((c) => {
                      const on = banner.includes(c.value);
                      const full = !on && variables >= MAX_VARIABLES && !(c.value.startsWith("segment:") && banner.some((b) => b.startsWith("segment:")));
                      return (
                        <label key={c.value} className="flex items-center gap-1.5 text-sm text-ink-700">
                          <input type="checkbox" className="size-4 accent-brand-600" checked={on} disabled={full} onChange={() => toggle(c.value)} />
                          {c.label}
                        </label>
                      );
                    })}
                </div>
              </div>
            ))}
          </div>
        </fieldset>
      </div>
      {!qual ? (
        <Skeleton className="h-72" />
      ) : !rows ? (
        <EmptyState title="Nothing to cross-tabulate">This test has no scaled measure or question with options.</EmptyState>
      ) : !banner.length ? (
        <EmptyState title="Choose columns">Tick at least one demographic, market, question or filter set.</EmptyState>
      ) : error ? (
        <EmptyState title="This cross-tab cannot be made">{error instanceof Error ? error.message : "The columns chosen are refused."}</EmptyState>
      ) : !data ? (
        isLoading ? (
          <Skeleton className="h-72" />
        ) : null
      ) : !data.rows.length ? (
        <EmptyState title="No results for these filters">No respondent in these filters answered it.</EmptyState>
      ) : (
        <XtabTable data={data} confidence={confidence} />
      )}
    </div>
  );
}

function XtabTable({ data, confidence }: { data: NonNullable<ReturnType<typeof useCrossTab>["data"]>; confidence: string }) {
  const spans = data.banner.map((b) => ({ ...b, span: data.columns.filter((c) => c.variable === b.key).length }));
  const m = data.method;
  const adj = m.adjust === "none" ? "no multiple-comparison adjustment" : `${m.adjustName} adjustment over the table's ${m.tests} tests`;
  const caption = `${data.stub.title}: ${data.stub.value.toLowerCase()} by ${data.banner.map((b) => b.label).join(", ")}`;
  return (
    <div className="space-y-2">
      <section className="relative overflow-x-auto rounded-xl border border-ink-200 bg-white shadow-sm" tabIndex={0} aria-label={caption} data-testid="crosstab">
        <table className="min-w-full text-sm">
          <caption className="px-3 pt-3 text-left text-sm font-semibold text-ink-900">
            {data.stub.title} <span className="font-normal text-ink-600">({data.stub.value.toLowerCase()})</span>
          </caption>
          <thead className="bg-ink-50">
            <tr>
              <td className="px-3 py-1.5" />
              <td className="px-3 py-1.5" />
              {spans.map((b) => (
                <th key={b.key} scope="colgroup" colSpan={b.span} className="border-l border-ink-200 px-3 py-1.5 text-left text-xs font-semibold text-ink-700">
                  {b.label}
                </th>
              ))}
            </tr>
            <tr>
              <th scope="col" className="sticky left-0 z-10 bg-ink-50 px-3 py-2 text-left text-xs font-semibold text-ink-600">
                {data.stub.kind === "measure" ? "Test option" : "Answer"}
              </th>
              <th scope="col" className="px-3 py-2 text-left text-xs font-semibold text-ink-600">
                Total
              </th>
              {data.columns.slice(1).map((c, i) => (
                <th key={c.key} scope="col" className={`min-w-20 px-3 py-2 text-left text-xs font-semibold text-ink-600 ${data.columns[i]?.variable !== c.variable ? "border-l border-ink-200" : ""}`}>
                  {c.label} <span className="text-sky-800">({c.letter})</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-ink-100">
            {data.rows.map((r) => (
              <tr key={r.key}>
                <th scope="row" className="sticky left-0 z-10 min-w-28 bg-white px-3 py-2 text-left font-medium text-ink-900 shadow-[1px_0_0_#e5e7eb]">
                  {r.label}
                </th>
                {r.cells.map((c, i) => (
                  <td
                    key={data.columns[i]!.key}
                    className={`px-3 py-2 align-top whitespace-nowrap ${i === 0 ? "bg-ink-50" : data.columns[i - 1]?.variable !== data.columns[i]!.variable ? "border-l border-ink-200" : ""}`}
                  >
                    {c.value === null ? (
                      <span className="text-ink-500">—</span>
                    ) : (
                      <Fragment>
                        <span className="text-ink-900">{pct(c.value, 1)}</span>
                        {c.higherThan.length ? (
                          <>
                            <span className="ml-1 font-semibold text-sky-800" data-testid="sig-letters" aria-hidden="true">
                              {c.higherThan.join("")}
                            </span>
                            <span className="sr-only">{` significantly above ${c.higherThan.join(", ")}`}</span>
                          </>
                        ) : null}
                      </Fragment>
                    )}
                    <span className="block text-xs text-ink-500">n {formatCount(c.n)}</span>
                    {c.smallBase && c.n > 0 ? <Badge tone="amber">low base</Badge> : null}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <p className="text-xs text-ink-600" data-testid="method-note">
        Letters: the columns of the same group significantly lower at {confidence}% ({m.comparisons.startsWith("every pair") ? "each pair of columns within a group, on each row" : m.comparisons}),
        after {adj}; design-based variance with market runs as strata. Low base: n eff below {m.smallBase}, shown but not tested.
        {data.total === "markets" ? " Weights: the all-markets total, each market's respondents reweighted to its population share (the Total column too)." : ""}
      </p>
    </div>
  );
}
