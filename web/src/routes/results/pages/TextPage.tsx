// text/{projectQuestionId}/{tab?} and npd-text: open answers, paged, with their themes and
// sentiment, searchable; the themes tab shows how often each theme comes up among the filtered
// respondents' answers (ThemeResults), per test option and by sentiment.
import { useState } from "react";
import { HBars } from "../../../components/charts/Charts";
import { Badge, Button, EmptyState, Input, Select, Skeleton, TabLinks, Table } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { useSearchState } from "../../../lib/search";
import { testOptionName, useResults } from "../../../features/results/context";
import { useThemeResults, useVerbatims, type ThemeResults } from "../../../features/results/queries";
import { questionLabel } from "../../../features/results/questions";
import { PageTitle } from "./MeasuresView";

const PAGE_SIZE = 20;
const SENTIMENTS = ["Positive", "Neutral", "Mixed", "Negative"] as const;
const SENTIMENT_TONE: Record<string, "green" | "neutral" | "amber" | "red"> = { Positive: "green", Neutral: "neutral", Mixed: "amber", Negative: "red" };

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function ThemesView({ data }: { data: ThemeResults }) {
  const { testOptions } = useResults();
  const options = data.testOptions.filter((o) => o.testOptionId !== null);
  const split = options.length > 1;
  return (
    <div className="space-y-4">
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="themes-chart">
        <HBars title="Share of answers per theme" items={data.themes.map((t) => ({ label: t.name, value: t.share }))} xLegend="Answers (%)" yLegend="Theme" />
        <p className="mt-2 text-xs text-ink-600" data-testid="themes-base">
          {data.answers} answer{data.answers === 1 ? "" : "s"} from the filtered respondents: {SENTIMENTS.map((s) => `${data.bySentiment[s]} ${s.toLowerCase()}`).join(", ")}. Shares of answers,
          unweighted; an answer may have several themes.
        </p>
      </div>
      <Table caption="Themes per test option and by sentiment" head={["Theme", "Answers", "Share", ...(split ? options.map((o) => testOptionName(testOptions, o.testOptionId)) : []), ...SENTIMENTS]}>
        {data.themes.map((t) => (
          <tr key={t.id}>
            <th scope="row" className="px-4 py-2 text-left font-medium">
              {t.name}
            </th>
            <td className="px-4 py-2">{t.count}</td>
            <td className="px-4 py-2">{pct(t.share)}</td>
            {split
              ? options.map((o) => {
                  const c = t.byTestOption.find((x) => x.testOptionId === o.testOptionId);
                  return (
                    <td key={o.testOptionId} className="px-4 py-2">
                      {c ? `${pct(c.share)} (${c.count})` : "—"}
                    </td>
                  );
                })
              : null}
            {SENTIMENTS.map((s) => (
              <td key={s} className="px-4 py-2 text-ink-600">
                {t.bySentiment[s]}
              </td>
            ))}
          </tr>
        ))}
      </Table>
    </div>
  );
}

export default function TextPage({ projectQuestionId, kind, tab }: { projectQuestionId: number; kind: "text" | "npd-text"; tab?: string }) {
  const { questions, testOptions, clientId, projectId } = useResults();
  const [search, setSearch] = useSearchState();
  const [draft, setDraft] = useState(String(search.q ?? ""));
  const page = Math.max(1, Number(search.page ?? 1) || 1);
  const themeId = search.theme ? Number(search.theme) : null;
  const sentiment = SENTIMENTS.find((x) => x === search.sentiment) ?? null;
  const testOptionId = search.option ? Number(search.option) : null;
  const pq = questions.find((q) => q.id === projectQuestionId);
  const { list, count } = useVerbatims(projectQuestionId, { page, pageSize: PAGE_SIZE, search: String(search.q ?? ""), themeId, sentiment, testOptionId });
  const themes = useThemeResults(projectQuestionId);
  const total = count.data?.count ?? 0;
  const current = tab === "themes" ? "themes" : "answers";
  const base = `${kind}/${projectQuestionId}`;
  return (
    <div>
      <PageTitle title={pq ? questionLabel(pq) : "Open answers"} subtitle={pq?.question?.questionText} />
      {kind === "text" ? (
        <TabLinks
          label="Open answer views"
          active={current}
          tabs={[
            { id: "answers", label: "Answers", href: `~${resultsLink(clientId, projectId, base)}` },
            { id: "themes", label: "Themes", href: `~${resultsLink(clientId, projectId, `${base}/themes`)}` },
          ]}
        />
      ) : null}
      {current === "themes" ? (
        !themes.data ? (
          <Skeleton className="h-60" />
        ) : !themes.data.themes.length ? (
          <EmptyState title="No themes yet">Themes are coded when the answers are processed.</EmptyState>
        ) : !themes.data.answers ? (
          <EmptyState title="No answers match the filters">No respondent in this selection answered this question.</EmptyState>
        ) : (
          <ThemesView data={themes.data} />
        )
      ) : (
        <>
          <form
            className="mb-4 grid gap-2 sm:grid-cols-2 2xl:grid-cols-[1fr_10rem_10rem_auto]"
            onSubmit={(e) => {
              e.preventDefault();
              setSearch({ q: draft, page: null });
            }}
          >
            <label htmlFor="verbatim-search" className="sr-only">
              Search answers
            </label>
            <Input id="verbatim-search" type="search" placeholder="Search answers" value={draft} onChange={(e) => setDraft(e.target.value)} />
            <label htmlFor="verbatim-theme" className="sr-only">
              Theme
            </label>
            <Select id="verbatim-theme" value={themeId ?? ""} onChange={(e) => setSearch({ theme: e.target.value, page: null })}>
              <option value="">All themes</option>
              {themes.data?.themes.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </Select>
            <label htmlFor="verbatim-sentiment" className="sr-only">
              Sentiment
            </label>
            <Select id="verbatim-sentiment" value={sentiment ?? ""} onChange={(e) => setSearch({ sentiment: e.target.value, page: null })}>
              <option value="">Any sentiment</option>
              {SENTIMENTS.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
            <Button type="submit" variant="secondary">
              Search
            </Button>
          </form>
          {testOptions.length > 1 ? (
            <div className="mb-3">
              <label htmlFor="verbatim-option" className="sr-only">
                Test option
              </label>
              <Select id="verbatim-option" className="max-w-xs" value={testOptionId ?? ""} onChange={(e) => setSearch({ option: e.target.value, page: null })}>
                <option value="">All test options</option>
                {testOptions.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.conceptText}
                  </option>
                ))}
              </Select>
            </div>
          ) : null}
          <p className="mb-2 text-sm text-ink-600" aria-live="polite" data-testid="verbatim-count">
            {count.data ? `${total} answer${total === 1 ? "" : "s"}` : "…"}
          </p>
          {!list.data ? (
            <Skeleton className="h-60" />
          ) : !list.data.value.length ? (
            <EmptyState title="No answers match" />
          ) : (
            <ul className="space-y-2" aria-label="Answers">
              {list.data.value.map((v) => (
                <li key={v.id} className="rounded-lg border border-ink-200 bg-white p-3 shadow-sm">
                  <p className="text-sm text-ink-900">{v.translatedText ?? v.responseText}</p>
                  <div className="mt-2 flex flex-wrap items-center gap-1.5 text-xs text-ink-500">
                    {v.sentiment ? <Badge tone={SENTIMENT_TONE[v.sentiment] ?? "neutral"}>{v.sentiment}</Badge> : null}
                    {v.themes.map((t) => (
                      <Badge key={t.id} tone="brand">
                        {t.name}
                      </Badge>
                    ))}
                    {testOptions.length > 1 ? <span>{testOptionName(testOptions, v.testOptionId)}</span> : null}
                    <span>· {new Date(v.createdAt).toLocaleDateString()}</span>
                  </div>
                </li>
              ))}
            </ul>
          )}
          {total > PAGE_SIZE ? (
            <div className="mt-4 flex items-center justify-between text-sm text-ink-600">
              <span>
                Page {page} of {Math.ceil(total / PAGE_SIZE)}
              </span>
              <div className="flex gap-2">
                <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => setSearch({ page: page - 1 > 1 ? page - 1 : null })}>
                  Previous
                </Button>
                <Button size="sm" variant="secondary" disabled={page * PAGE_SIZE >= total} onClick={() => setSearch({ page: page + 1 })}>
                  Next
                </Button>
              </div>
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}
