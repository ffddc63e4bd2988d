// The results page's side panels (SPEC 2): test info, benchmark, followers, segment (filter sets),
// scheduling (and its edit), export, objectives and AI summaries. One drawer; closing it after a
// change refetches the project and the scheduling state (SPEC 4).
import { Dialog, DialogPanel, DialogTitle } from "@headlessui/react";
import { lazy, Suspense, useRef } from "react";
import { useSWRConfig } from "swr";
import { PageSkeleton } from "../../../components/ui";
import { useResults } from "../../../features/results/context";

export type PanelId = "info" | "benchmark" | "followers" | "segment" | "scheduling" | "export" | "objectives";

const TITLES: Record<PanelId, string> = {
  info: "Test info",
  benchmark: "Benchmark and view",
  followers: "Followers",
  segment: "Filter sets",
  scheduling: "Scheduling",
  export: "Export",
  objectives: "Objectives and AI summaries",
};

const Info = lazy(() => import("./InfoPanel"));
const Benchmark = lazy(() => import("./BenchmarkPanel"));
const Followers = lazy(() => import("./FollowersPanel"));
const Segment = lazy(() => import("./SegmentPanel"));
const Scheduling = lazy(() => import("./SchedulingPanel"));
const Export = lazy(() => import("./ExportPanel"));
const Objectives = lazy(() => import("./ObjectivesPanel"));

export function PanelHost({ panel, onClose }: { panel: PanelId | null; onClose: () => void }) {
  const { refetchProject, projectId } = useResults();
  const { mutate } = useSWRConfig();
  const changed = useRef(false);
  const markChanged = () => (changed.current = true);
  const close = () => {
    if (changed.current) {
      refetchProject();
      void mutate((k) => Array.isArray(k) && k[0] === "SchedulingState" && k[1] === projectId);
      changed.current = false;
    }
    onClose();
  };
  return (
    <Dialog open={panel !== null} onClose={close} className="relative z-40">
      <div className="fixed inset-0 bg-ink-900/30" aria-hidden="true" />
      <div className="fixed inset-y-0 right-0 flex w-full max-w-md">
        <DialogPanel className="flex w-full flex-col overflow-y-auto bg-white shadow-xl">
          <div className="flex items-center justify-between border-b border-ink-100 px-5 py-4">
            <DialogTitle className="text-lg font-semibold text-ink-900">{panel ? TITLES[panel] : ""}</DialogTitle>
            <button type="button" onClick={close} className="rounded p-1 text-ink-500 hover:bg-ink-100" aria-label="Close panel">
              <svg viewBox="0 0 20 20" className="size-5" fill="currentColor" aria-hidden="true">
                <path d="M5.3 4.3a1 1 0 0 0-1.4 1.4L8.6 10l-4.7 4.3a1 1 0 1 0 1.4 1.4L10 11.4l4.3 4.3a1 1 0 0 0 1.4-1.4L11.4 10l4.3-4.3a1 1 0 0 0-1.4-1.4L10 8.6 5.3 4.3Z" />
              </svg>
            </button>
          </div>
          <div className="flex-1 p-5">
            <Suspense fallback={<PageSkeleton rows={3} />}>
              {panel === "info" ? <Info /> : null}
              {panel === "benchmark" ? <Benchmark /> : null}
              {panel === "followers" ? <Followers onChanged={markChanged} /> : null}
              {panel === "segment" ? <Segment /> : null}
              {panel === "scheduling" ? <Scheduling onChanged={markChanged} /> : null}
              {panel === "export" ? <Export /> : null}
              {panel === "objectives" ? <Objectives onChanged={markChanged} /> : null}
            </Suspense>
          </div>
        </DialogPanel>
      </div>
    </Dialog>
  );
}
