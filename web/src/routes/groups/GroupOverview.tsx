// The group overview: respondents per project and the pooled top-2-box per measure against each project's.
import { Link } from "wouter";
import { Top2Bars, pct } from "../../components/charts/Charts";
import { Card, EmptyState, Skeleton, Table } from "../../components/ui";
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { useGroup } from "../../features/results/group";
import { formatCount } from "../../lib/numbers";

export function useQualGroup() {
  const { group, filtersJson } = useGroup();
  return useApi(["QualResultsGroup", group.id, filtersJson], () => api.GET("/api/v1/Responses/QualResultsGroup", { params: { query: { projectGroupId: String(group.id), filters: filtersJson } } }), {
    keepPreviousData: true,
  });
}

export default function GroupOverview({ tab }: { tab?: string }) {
  const { group, filtersJson, clientId, projects } = useGroup();
  const { data: ws } = useApi(["WeightSumGroup", group.id, filtersJson], () =>
    api.GET("/api/v1/Responses/WeightSumGroup", { params: { query: { projectGroupId: String(group.id), filters: filtersJson } } }),
  );
  const { data } = useQualGroup();

  const name = (id: number) => projects.find((p) => p.id === id)?.projectName ?? `Project ${id}`;
  if (tab && tab !== "overview") return <EmptyState title="Page not found" />;
  if (!projects.length) return <EmptyState title="No projects in this group yet" />;
  const cells = (data?.measures ?? []).flatMap((m) => [
    { group: m.title, series: "Group", top2: m.group.top2, ci: m.group.ci, n: m.group.n },
    ...m.projects.map((p) => ({ group: m.title, series: name(p.projectId!), top2: p.top2, ci: p.ci, n: p.n })),
  ]);
  return (
    <div className="space-y-5">
      <div className="grid gap-3 sm:grid-cols-3">
        <Card>
          <p className="text-xs text-ink-500">Respondents</p>
          {ws ? (
            <p className="text-2xl font-semibold" data-testid="group-respondents">
              {ws.count.toLocaleString()}
            </p>
          ) : (
            <Skeleton className="h-8" />
          )}
        </Card>
        <Card>
          <p className="text-xs text-ink-500">Projects</p>
          <p className="text-2xl font-semibold">{projects.length}</p>
        </Card>
      </div>
      {!data ? (
        <Skeleton className="h-80" />
      ) : !data.measures.length ? (
        <EmptyState title="No measures for these filters" />
      ) : (
        <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
          <Top2Bars title="Top-2-box: the group and each project" cells={cells} series={["Group", ...data.projectIds.map(name)]} xLegend="Measure" />
        </div>
      )}
      <Table head={["Project", "Respondents", "Effective sample", "Results"]} caption="Projects of the group">
        {projects.map((p) => {
          const w = ws?.projects.find((x) => x.projectId === p.id);
          return (
            <tr key={p.id}>
              <td className="px-4 py-2 font-medium">{p.projectName}</td>
              <td className="px-4 py-2">{w?.count ?? "—"}</td>
              <td className="px-4 py-2">{w ? formatCount(w.nEff) : "—"}</td>
              <td className="px-4 py-2">
                {p.statusCode >= 800 ? (
                  <Link className="text-brand-700 hover:underline" href={`~/${clientId}/results/${p.id}`}>
                    Open results
                  </Link>
                ) : (
                  "Not ready"
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      {data ? <p className="text-xs text-ink-500">Pooled over the group's projects; intervals at {pct(0.95)} confidence.</p> : null}
    </div>
  );
}
