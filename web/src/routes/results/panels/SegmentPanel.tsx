// Filter sets (Segments, visible to the whole team): save the active filters, apply, rename,
// update and delete with SPEC 8's confirm and toasts.
import { useState } from "react";
import { api, selected, unwrap, type Row } from "../../../api/client";
import { handleError } from "../../../api/errors";
import { ConfirmDialog } from "../../../components/Dialog";
import { toast } from "../../../components/toast";
import { Button, EmptyState, Input, Skeleton } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { filterCount, resetFilters, stateFromSegment } from "../../../features/results/filters";
import { useSegments, useSystemOptions, type SegmentRow } from "../FilterSidebar";
import { useCanWrite } from "../../../features/access";

export default function SegmentPanel() {
  // Only what the role can do is offered (a Viewer or a shared reader reads).
  const canWrite = useCanWrite();
  const { projectId, responseFilter, filters, setFilters, regionId, questions } = useResults();
  const { data, mutate } = useSegments(projectId);
  const { data: sysOpts } = useSystemOptions(regionId);
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<{ id: number; name: string } | null>(null);
  const [deleting, setDeleting] = useState<SegmentRow | null>(null);

  const save = async () => {
    setBusy(true);
    try {
      const s = await unwrap(selected<Row<"Segments", "id">>(api.POST("/api/v1/Segments", { body: { projectId, name: name.trim(), responsesFilters: responseFilter } })));
      toast.success("Filter set saved", "All team members can access this filter set in the filters menu.");
      setName("");
      await mutate();
      setFilters({ ...filters, segmentId: s.id });
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  const patch = async (id: number, body: { name?: string; responsesFilters?: unknown }) => {
    try {
      await unwrap(api.PATCH("/api/v1/Segments({key})", { params: { path: { key: String(id) } }, body }));
      toast.success("Filter set saved", "All team members can access this filter set in the filters menu.");
      await mutate();
      setRenaming(null);
    } catch (e) {
      handleError(e);
    }
  };
  const remove = async (s: SegmentRow) => {
    setBusy(true);
    try {
      await unwrap(api.DELETE("/api/v1/Segments({key})", { params: { path: { key: String(s.id) } } }));
      await mutate();
      setFilters(resetFilters(filters));
      setDeleting(null);
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  const apply = (s: SegmentRow) => {
    const codeOf = new Map((sysOpts?.value ?? []).map((o) => [o.id, o.systemQuestion?.questionCode]));
    const questionOf = new Map(questions.flatMap((q) => (q.question?.questionOptions ?? []).map((o) => [o.id, q.id] as const)));
    setFilters(
      stateFromSegment(
        s.id,
        s.responsesFilters ?? {},
        (i) => codeOf.get(i),
        (i) => questionOf.get(i),
      ),
    );
  };

  return (
    <div className="space-y-5 text-sm">
      {canWrite ? (
        <form
          className="space-y-2 rounded-lg bg-ink-50 p-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) void save();
          }}
        >
          <label htmlFor="segment-name" className="block font-medium text-ink-800">
            Save the current filters ({filterCount(filters)} active) as
          </label>
          <div className="flex gap-2">
            <Input id="segment-name" value={name} maxLength={200} placeholder="Filter set name" onChange={(e) => setName(e.target.value)} />
            <Button type="submit" busy={busy} disabled={!name.trim()}>
              Save
            </Button>
          </div>
        </form>
      ) : null}
      {!data ? (
        <Skeleton className="h-24" />
      ) : !data.value.length ? (
        <EmptyState title="No filter sets yet">Save the filters you use often; everyone in your team can apply them.</EmptyState>
      ) : (
        <ul className="space-y-2" aria-label="Filter sets">
          {data.value.map((s) => (
            <li key={s.id} className="rounded-lg border border-ink-200 p-3">
              {renaming?.id === s.id ? (
                <form
                  className="flex gap-2"
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (renaming.name.trim() && renaming.name.trim() !== s.name) void patch(s.id, { name: renaming.name.trim() });
                    else setRenaming(null);
                  }}
                >
                  <label htmlFor={`segment-rename-${s.id}`} className="sr-only">
                    New name
                  </label>
                  <Input id={`segment-rename-${s.id}`} value={renaming.name} onChange={(e) => setRenaming({ id: s.id, name: e.target.value })} autoFocus />
                  <Button type="submit" size="sm">
                    Save
                  </Button>
                </form>
              ) : (
                <div className="flex items-center justify-between gap-2">
                  <span className="font-medium text-ink-900">
                    {s.name}
                    {filters.segmentId === s.id ? <span className="ml-2 text-xs text-brand-700">applied</span> : null}
                  </span>
                </div>
              )}
              <div className="mt-2 flex flex-wrap gap-1.5">
                <Button size="sm" onClick={() => apply(s)} aria-label={`Apply ${s.name}`}>
                  Apply
                </Button>
                {canWrite ? (
                  <>
                    <Button size="sm" variant="secondary" onClick={() => setRenaming({ id: s.id, name: s.name })} aria-label={`Rename ${s.name}`}>
                      Rename
                    </Button>
                    <Button size="sm" variant="secondary" onClick={() => void patch(s.id, { responsesFilters: responseFilter })} aria-label={`Update ${s.name} with the current filters`}>
                      Update
                    </Button>
                    <Button size="sm" variant="ghost" className="text-rose-700" onClick={() => setDeleting(s)} aria-label={`Delete ${s.name}`}>
                      Delete
                    </Button>
                  </>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete filter set"
        message={`Are you sure you want to delete filter set "${deleting?.name ?? ""}"?`}
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      />
    </div>
  );
}
