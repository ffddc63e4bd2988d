// Group segments: respondents per segment, and the segments to filter the group's pages by.
import { HBars } from "../../components/charts/Charts";
import { EmptyState, Skeleton } from "../../components/ui";
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { useSearchState } from "../../lib/search";
import { useGroup } from "../../features/results/group";

export default function GroupSegments() {
  const { group, segmentIds } = useGroup();
  const [, setSearch] = useSearchState();
  // Segments belong to a version of the group: without one there is nothing to count.
  const { data } = useApi(group.activeVersionId ? ["ProjectGroupSegmentCounts", group.id] : null, () =>
    api.GET("/api/v1/ProjectGroups({key})/ProjectGroupSegmentCounts", { params: { path: { key: String(group.id) }, query: { filters: "{}" } } }),
  );
  if (!group.activeVersionId) return <EmptyState title="No segments in this group">The group has no version yet: staff create one, then generate its segments.</EmptyState>;
  if (!data) return <Skeleton className="h-72" />;
  if (!data.segments.length) return <EmptyState title="No segments in this group">Staff generate segments for a group's version.</EmptyState>;
  const total = data.segments.map((s) => ({ id: s.projectGroupSegmentId, name: s.name, weight: s.rows.reduce((n, r) => n + r.weight, 0), count: s.rows.reduce((n, r) => n + r.count, 0) }));
  const max = Math.max(1, ...total.map((t) => t.weight));
  const toggle = (id: number) => setSearch({ groupSegments: segmentIds.includes(id) ? segmentIds.filter((i) => i !== id) : [...segmentIds, id] });
  return (
    <div className="space-y-5">
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
        <HBars title="Respondents per segment (weighted, relative to the largest)" items={total.map((t) => ({ label: t.name, value: t.weight / max }))} xLegend="Relative size (%)" yLegend="Segment" />
      </div>
      <fieldset className="rounded-xl border border-ink-200 bg-white p-4">
        <legend className="px-1 text-sm font-semibold text-ink-900">Filter the group's pages by segment</legend>
        <div className="grid gap-1.5 sm:grid-cols-2">
          {total.map((t) => (
            <label key={t.id} className="flex items-center gap-2 text-sm">
              <input type="checkbox" className="accent-brand-600" checked={segmentIds.includes(t.id)} onChange={() => toggle(t.id)} /> {t.name} <span className="text-ink-500">({t.count})</span>
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  );
}
