// Export: CSV and Excel files of the filtered results, and the PowerPoint deck as a job whose
// Progress, Success and Error come on the job channel (job-{id}), with a download when done.
import { useEffect, useRef, useState } from "react";
import { api, unwrap } from "../../../api/client";
import { handleError } from "../../../api/errors";
import { toast } from "../../../components/toast";
import { Button } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { saveResponse } from "../../../features/results/download";
import { joinChannel, leaveChannel, onRealtime } from "../../../state/realtime";
import { isJobNews, PowerPointJobResult } from "../../../../../contracts/events";

const LEVELS = { "90": 90, "95": 95, "99": 99 } as const;

type Job = { jobId: string; pct: number; message?: string; state: "running" | "done" | "failed"; exportId?: string; fileName?: string; error?: string };

export default function ExportPanel() {
  const { projectId, filtersJson, responseFilter, benchmarkId, filters, project, confidence, adjust, allMarkets } = useResults();
  // The view's settings: the workbook and the deck hold the figures on screen (All markets: the all-markets total).
  const total = allMarkets ? ("markets" as const) : ("sample" as const);
  const [busy, setBusy] = useState<string | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const jobRef = useRef<string | null>(null);
  const base = project.projectName.replace(/[^\w-]+/g, "_");

  useEffect(
    () =>
      onRealtime((ev) => {
        if (!isJobNews(ev) || !jobRef.current || ev.data.jobId !== jobRef.current) return;
        if (ev.event === "Progress") {
          const { pct, message } = ev.data;
          setJob((j) => (j && j.state === "running" ? { ...j, pct, message } : j));
        }
        if (ev.event === "Success") {
          // The deck's id and name, as the job declares its result (contracts/events.ts).
          const deck = PowerPointJobResult.safeParse(ev.data.result);
          const done = deck.success ? { exportId: deck.data.exportId, fileName: deck.data.fileName } : {};
          setJob((j) => (j ? { ...j, state: "done", pct: 100, ...done } : j));
        }
        if (ev.event === "Error") {
          const error = ev.data.message || "The export failed";
          setJob((j) => (j ? { ...j, state: "failed", error } : j));
        }
      }),
    [],
  );
  useEffect(() => () => { if (jobRef.current) leaveChannel(`job-${jobRef.current}`); }, []);

  const file = async (kind: "csv" | "excel") => {
    setBusy(kind);
    try {
      if (kind === "csv") await saveResponse(api.GET("/api/v1/Projects({key})/ExportCsv", { params: { path: { key: String(projectId) }, query: { filters: filtersJson } }, parseAs: "blob" }), `${base}.csv`);
      else {
        const query: Record<string, string> = { filters: filtersJson, confidence, adjust, total };
        if (filters.segmentId) query.segmentId = String(filters.segmentId);
        if (benchmarkId !== null) query.benchmarkTypeId = String(benchmarkId);
        await saveResponse(api.GET("/api/v1/Projects({key})/ExportExcel", { params: { path: { key: String(projectId) }, query }, parseAs: "blob" }), `${base}.xlsx`);
      }
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(null);
    }
  };
  const powerpoint = async () => {
    setBusy("pptx");
    try {
      const { jobId } = (await unwrap(api.POST("/api/v1/Projects({key})/PowerPointExport", { params: { path: { key: String(projectId) } }, body: { filters: responseFilter, benchmarkTypeId: benchmarkId, confidence: LEVELS[confidence], adjust, total } })));
      if (jobRef.current) leaveChannel(`job-${jobRef.current}`);
      jobRef.current = jobId;
      setJob({ jobId, pct: 0, state: "running" });
      joinChannel(`job-${jobId}`);
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(null);
    }
  };
  const downloadDeck = async () => {
    if (!job?.exportId) return;
    try {
      await saveResponse(api.GET("/api/v1/Projects({key})/PowerPointExport/{exportId}", { params: { path: { key: String(projectId), exportId: job.exportId } }, parseAs: "blob" }), job.fileName ?? `${base}.pptx`);
    } catch (e) {
      handleError(e);
      toast.error("The deck could not be downloaded");
    }
  };

  return (
    <div className="space-y-5 text-sm">
      <p className="text-ink-600">
        Exports use the filters, benchmark, confidence ({confidence}%) and adjustment you have applied{allMarkets ? ", and the all-markets total" : ""}.
      </p>
      <section className="space-y-2">
        <h3 className="font-semibold text-ink-900">Data files</h3>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" busy={busy === "csv"} onClick={() => void file("csv")}>Download CSV</Button>
          <Button variant="secondary" busy={busy === "excel"} onClick={() => void file("excel")}>Download Excel</Button>
        </div>
      </section>
      <section className="space-y-2">
        <h3 className="font-semibold text-ink-900">PowerPoint</h3>
        <Button busy={busy === "pptx" || job?.state === "running"} onClick={() => void powerpoint()}>Create PowerPoint</Button>
        {job ? (
          <div className="space-y-2 rounded-lg border border-ink-200 p-3" data-testid="pptx-job">
            <div className="flex justify-between text-xs text-ink-600">
              <span>{job.state === "done" ? "Ready" : job.state === "failed" ? "Failed" : job.message ?? "Queued"}</span>
              <span>{job.pct}%</span>
            </div>
            <div className="h-2 overflow-hidden rounded-full bg-ink-100" role="progressbar" aria-label="PowerPoint export progress" aria-valuenow={job.pct} aria-valuemin={0} aria-valuemax={100}>
              <div className="h-full bg-brand-600 transition-all" style={{ width: `${job.pct}%` }} />
            </div>
            {job.state === "done" ? <Button size="sm" onClick={() => void downloadDeck()}>Download PowerPoint</Button> : null}
            {job.state === "failed" ? <p className="text-rose-700" role="alert">{job.error}</p> : null}
          </div>
        ) : null}
      </section>
    </div>
  );
}
