// text/{questionId}: a group question's open answers across the group's projects. Its themes are
// counted over the filtered respondents' answers, as the project themes tab counts them: each
// project's ThemeResults for the group's filter (segments, and the market chosen here), added up
// theme by theme (features/results/groupThemes.ts); below them the answers, newest first, paged,
// for the same filter.
import { useMemo } from "react";
import { Badge, Button, EmptyState, Select, Skeleton, Table } from "../../components/ui";
import { api, selected, unwrap, type Page, type Row } from "../../api/client";
import { useApi } from "../../api/hooks";
import { useSearchState } from "../../lib/search";
import { odataString } from "../../features/projects";
import { useGroup } from "../../features/results/group";
import { mergeThemes, SENTIMENTS } from "../../features/results/groupThemes";

const PAGE_SIZE = 20;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

type ProjectMarkets = Row<"Projects", "id", { projectsRegions: Row<"ProjectsRegions", "regionId", { region: Row<"Regions", "regionName"> | null }>[] }>;

export default function GroupText({ questionId }: { questionId: number }) {
  const { group, questions, filtersJson, projects } = useGroup();
  const [search, setSearch] = useSearchState();
  const page = Math.max(1, Number(search.page ?? 1) || 1);
  const ids = projects.map((p) => p.id).join(",");
  // The markets the group's projects were fielded in: one of them filters the page.
  const { data: markets } = useApi(ids ? ["GroupMarkets", ids] : null, () =>
    selected<Page<ProjectMarkets>>(
      api.GET("/api/v1/Projects", { params: { query: { $filter: `id in (${ids})`, $select: "id", $expand: "projectsRegions($select=regionId;$expand=region($select=regionName))" } } }),
    ),
  );
  const regions = useMemo(() => {
    const m = new Map<number, string>();
    for (const p of markets?.value ?? []) for (const r of p.projectsRegions) m.set(r.regionId, r.region?.regionName ?? `Market ${r.regionId}`);
    return [...m.entries()].sort((a, b) => a[1].localeCompare(b[1]));
  }, [markets]);
  const market = Number(search.market) || null;
  const filters = useMemo(() => JSON.stringify({ ...(JSON.parse(filtersJson) as Record<string, unknown>), ...(market ? { regionIds: [market] } : {}) }), [filtersJson, market]);

  const query = { projectGroupId: String(group.id), questionId: String(questionId), filters, page: String(page), pageSize: String(PAGE_SIZE) };
  const { data } = useApi(["VerbatimGroup", query], () => api.GET("/api/v1/TextResponses/VerbatimGroup", { params: { query } }));
  const { data: count } = useApi(["VerbatimCountGroup", query], () => api.GET("/api/v1/TextResponses/VerbatimCountGroup", { params: { query } }));
  // Each project's copy of the question (the same text, as VerbatimGroup matches them), and its themes for the filter.
  const { data: themes } = useApi(ids ? ["GroupThemes", group.id, questionId, ids, filters] : null, async () => {
    const q = await unwrap(selected<Row<"Questions", "questionText">>(api.GET("/api/v1/Questions({key})", { params: { path: { key: String(questionId) }, query: { $select: "questionText" } } })));
    const pqs = await unwrap(
      selected<Page<Row<"ProjectQuestions", "id" | "projectId">>>(
        api.GET("/api/v1/ProjectQuestions", {
          params: { query: { $filter: `projectId in (${ids}) and question/questionTypeId eq 3 and question/questionText eq ${odataString(q.questionText)}`, $select: "id,projectId" } },
        }),
      ),
    );
    const results = await Promise.all(
      pqs.value.map((pq) => unwrap(api.GET("/api/v1/TextResponses/ThemeResults", { params: { query: { projectId: String(pq.projectId), projectQuestionId: String(pq.id), filters } } }))),
    );
    // The projects with answers under this filter (a project not fielded in the market picked has none).
    return { data: { projects: results.filter((r) => r.answers > 0).length, merged: mergeThemes(results) }, response: new Response() };
  });
  const gq = questions.find((q) => q.questionId === questionId);
  const total = count?.count ?? 0;
  return (
    <div>
      <h2 className="mb-1 text-xl font-semibold text-ink-900">{gq?.title || gq?.question?.questionText || "Open answers"}</h2>
      <p className="mb-3 text-sm text-ink-600">{count ? `${total} answers` : "…"}</p>
      {regions.length > 1 ? (
        <div className="mb-4 max-w-xs">
          <label htmlFor="group-market" className="mb-1 block text-sm font-medium text-ink-700">
            Market
          </label>
          <Select id="group-market" value={market ?? ""} onChange={(e) => setSearch({ market: e.target.value || null, page: null })}>
            <option value="">All markets</option>
            {regions.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </Select>
        </div>
      ) : null}
      <section aria-labelledby="group-themes-title" className="mb-6">
        <h3 id="group-themes-title" className="mb-2 text-base font-semibold text-ink-900">
          Themes
        </h3>
        {!themes ? (
          <Skeleton className="h-40" />
        ) : !themes.merged.themes.length ? (
          <EmptyState title="No themes yet">Themes are coded when the answers are processed.</EmptyState>
        ) : !themes.merged.answers ? (
          <EmptyState title="No answers match the filters">No respondent in this selection answered this question.</EmptyState>
        ) : (
          <>
            <p className="mb-2 text-xs text-ink-600" data-testid="group-themes-base">
              {themes.merged.answers} answer{themes.merged.answers === 1 ? "" : "s"} from the filtered respondents in {themes.projects} project{themes.projects === 1 ? "" : "s"}:{" "}
              {SENTIMENTS.map((s) => `${themes.merged.bySentiment[s]} ${s.toLowerCase()}`).join(", ")}. Each project's themes, added up by name; shares of answers, unweighted; an answer may have
              several themes.
            </p>
            <Table caption="Themes of the group's answers by sentiment" head={["Theme", "Answers", "Share", ...SENTIMENTS]}>
              {themes.merged.themes.map((t) => (
                <tr key={t.name}>
                  <th scope="row" className="px-4 py-2 text-left font-medium">
                    {t.name}
                  </th>
                  <td className="px-4 py-2">{t.count}</td>
                  <td className="px-4 py-2">{pct(t.share)}</td>
                  {SENTIMENTS.map((s) => (
                    <td key={s} className="px-4 py-2 text-ink-600">
                      {t.bySentiment[s]}
                    </td>
                  ))}
                </tr>
              ))}
            </Table>
          </>
        )}
      </section>
      <h3 className="mb-2 text-base font-semibold text-ink-900">Answers</h3>
      {!data ? (
        <Skeleton className="h-60" />
      ) : !data.value.length ? (
        <EmptyState title="No answers" />
      ) : (
        <ul className="space-y-2" aria-label="Answers">
          {data.value.map((v) => (
            <li key={v.id} className="rounded-lg border border-ink-200 bg-white p-3 text-sm shadow-sm">
              {v.translatedText ?? v.responseText}
              <div className="mt-1 flex gap-2 text-xs text-ink-500">
                {v.sentiment ? <Badge>{v.sentiment}</Badge> : null}
                <span>{new Date(v.createdAt).toLocaleDateString()}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
      {total > PAGE_SIZE ? (
        <div className="mt-4 flex justify-end gap-2">
          <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => setSearch({ page: page - 1 > 1 ? page - 1 : null })}>
            Previous
          </Button>
          <Button size="sm" variant="secondary" disabled={page * PAGE_SIZE >= total} onClick={() => setSearch({ page: page + 1 })}>
            Next
          </Button>
        </div>
      ) : null}
    </div>
  );
}
