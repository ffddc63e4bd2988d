// test-options/{tab}: the group's projects compared on one measure ({tab} is its standard question
// id, or 'all' for every measure in a table).
import { useLocation } from "wouter";
import { HBars, pct } from "../../components/charts/Charts";
import { EmptyState, Select, Skeleton, Table } from "../../components/ui";
import { useGroup } from "../../features/results/group";
import { useQualGroup } from "./GroupOverview";

export default function GroupTestOptions({ tab }: { tab: string }) {
  const { projects } = useGroup();
  const [, navigate] = useLocation();
  const { data } = useQualGroup();

  const name = (id: number) => projects.find((p) => p.id === id)?.projectName ?? `Project ${id}`;
  if (!data) return <Skeleton className="h-72" />;
  if (!data.measures.length) return <EmptyState title="No measures for these filters" />;
  const m = data.measures.find((x) => String(x.standardQuestionId) === tab);
  return (
    <div className="space-y-4">
      <div className="max-w-xs">
        <label htmlFor="group-measure" className="mb-1 block text-xs font-medium text-ink-600">
          Measure
        </label>
        <Select id="group-measure" value={m ? tab : "all"} onChange={(e) => navigate(`/test-options/${e.target.value}${location.search}`)}>
          <option value="all">All measures</option>
          {data.measures.map((x) => (
            <option key={x.standardQuestionId} value={x.standardQuestionId}>
              {x.title}
            </option>
          ))}
        </Select>
      </div>
      {m ? (
        <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
          <HBars title={`${m.title}: top-2-box by project`} items={m.projects.map((p) => ({ label: name(p.projectId!), value: p.top2 }))} xLegend="Top-2-box (%)" yLegend="Project" />
        </div>
      ) : (
        <Table head={["Measure", "Group", ...data.projectIds.map(name)]} caption="Top-2-box by project">
          {data.measures.map((x) => (
            <tr key={x.standardQuestionId}>
              <td className="px-4 py-2 font-medium">{x.title}</td>
              <td className="px-4 py-2">{pct(x.group.top2, 1)}</td>
              {data.projectIds.map((id) => (
                <td key={id} className="px-4 py-2">
                  {pct(x.projects.find((p) => p.projectId === id)?.top2, 1)}
                </td>
              ))}
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}
