// Export: CSV and Excel files of the filtered results, and the PowerPoint deck as a job whose
// Progress, Success and Error come on the job channel (job-{id}), with a download when done. A CSV or
// Excel export beyond the bound on exports in flight (record 0134) is answered 202 with a job too: its
// progress is shown the same way and the file is fetched when the job is done (or, when it ended
// before the channel was joined, as soon as the join is confirmed).
import { useCallback, useEffect, useRef, useState } from "react";
import { api, unwrap } from "../../../api/client";
import { handleError } from "../../../api/errors";
import { toast } from "../../../components/toast";
import { Button } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { saveOrQueued, saveResponse } from "../../../features/results/download";
import { joinChannel, leaveChannel, onJoined, onRealtime } from "../../../state/realtime";
import { DataExportJobResult, isJobNews, PowerPointJobResult } from "@ideally/contracts/events";

const LEVELS = { "90": 90, "95": 95, "99": 99 } as const;

type Job = { jobId: string; pct: number; message?: string; state: "running" | "done" | "failed"; exportId?: string; fileName?: string; error?: string };
type DataKind = "csv" | "excel";
/** A CSV or Excel export the API queued. */
type DataJob = Job & { kind: DataKind };
const DATA_WORDS: Record<DataKind, string> = { csv: "CSV", excel: "Excel" };

export default function ExportPanel() {
  const { projectId, filtersJson, responseFilter, benchmarkId, filters, project, confidence, adjust, allMarkets } = useResults();
  // The view's settings: the workbook and the deck hold the figures on screen (All markets: the all-markets total).
  const total = allMarkets ? ("markets" as const) : ("sample" as const);
  const [busy, setBusy] = useState<string | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const jobRef = useRef<string | null>(null);
  const [dataJobs, setDataJobs] = useState<DataJob[]>([]);
  /** The queued data exports followed now, by job id; and those whose file was already fetched. */
  const dataRef = useRef(new Map<string, DataKind>());
  const fetched = useRef(new Set<string>());
  const base = project.projectName.replace(/[^\w-]+/g, "_");
  const patchData = useCallback((jobId: string, patch: Partial<DataJob>) => setDataJobs((js) => js.map((j) => (j.jobId === jobId ? { ...j, ...patch } : j))), []);

  /** A queued export's file, by the export's or the job's id: false while the job has not kept it. */
  const fetchQueued = async (jobId: string, id: string): Promise<boolean> => {
    const kind = dataRef.current.get(jobId);
    if (!kind || fetched.current.has(jobId)) return true;
    const path = { params: { path: { key: String(projectId), exportId: id } }, parseAs: "blob" as const };
    const r = kind === "csv" ? await api.GET("/api/v1/Projects({key})/ExportCsv/{exportId}", path) : await api.GET("/api/v1/Projects({key})/ExportExcel/{exportId}", path);
    if (r.response.status === 404) return false;
    if (fetched.current.has(jobId)) return true;
    fetched.current.add(jobId);
    const name = await saveResponse(Promise.resolve(r), `${base}.${kind === "csv" ? "csv" : "xlsx"}`);
    patchData(jobId, { state: "done", pct: 100, exportId: id, fileName: name });
    return true;
  };
  const fetchQueuedRef = useRef(fetchQueued);
  fetchQueuedRef.current = fetchQueued;

  useEffect(
    () =>
      onRealtime((ev) => {
        if (!isJobNews(ev)) return;
        const id = ev.data.jobId;
        if (dataRef.current.has(id)) {
          const fail = (e: unknown) => {
            handleError(e);
            patchData(id, { state: "failed", error: "The file could not be downloaded" });
          };
          if (ev.event === "Progress") {
            const { pct, message } = ev.data;
            setDataJobs((js) => js.map((j) => (j.jobId === id && j.state === "running" ? { ...j, pct, message } : j)));
          } else if (ev.event === "Success") {
            // The stored file's id, as the data export job declares its result (contracts/events.ts).
            const file = DataExportJobResult.safeParse(ev.data.result);
            void fetchQueuedRef.current(id, file.success ? file.data.exportId : id).catch(fail);
          } else if (ev.event === "Error" && !ev.data.willRetry) patchData(id, { state: "failed", error: ev.data.message || "The export failed" });
          return;
        }
        if (!jobRef.current || id !== jobRef.current) return;
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
    [patchData],
  );
  // Joined a queued export's channel: the job may have ended before, and its file then comes now.
  useEffect(
    () =>
      onJoined((channel) => {
        const id = channel.startsWith("job-") ? channel.slice(4) : null;
        if (!id || !dataRef.current.has(id)) return;
        void fetchQueuedRef.current(id, id).catch((e: unknown) => {
          handleError(e);
          patchData(id, { state: "failed", error: "The file could not be downloaded" });
        });
      }),
    [patchData],
  );
  useEffect(
    () => () => {
      if (jobRef.current) leaveChannel(`job-${jobRef.current}`);
      for (const id of dataRef.current.keys()) leaveChannel(`job-${id}`);
    },
    [],
  );

  const file = async (kind: DataKind) => {
    setBusy(kind);
    try {
      let answer: { saved: string } | { jobId: string };
      if (kind === "csv")
        answer = await saveOrQueued(api.GET("/api/v1/Projects({key})/ExportCsv", { params: { path: { key: String(projectId) }, query: { filters: filtersJson } }, parseAs: "blob" }), `${base}.csv`);
      else {
        const query: Record<string, string> = { filters: filtersJson, confidence, adjust, total };
        if (filters.segmentId) query.segmentId = String(filters.segmentId);
        if (benchmarkId !== null) query.benchmarkTypeId = String(benchmarkId);
        answer = await saveOrQueued(api.GET("/api/v1/Projects({key})/ExportExcel", { params: { path: { key: String(projectId) }, query }, parseAs: "blob" }), `${base}.xlsx`);
      }
      if ("jobId" in answer) {
        dataRef.current.set(answer.jobId, kind);
        setDataJobs((js) => [...js, { jobId: answer.jobId, kind, pct: 0, state: "running" }]);
        joinChannel(`job-${answer.jobId}`);
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
      const { jobId } = await unwrap(
        api.POST("/api/v1/Projects({key})/PowerPointExport", {
          params: { path: { key: String(projectId) } },
          body: { filters: responseFilter, benchmarkTypeId: benchmarkId, confidence: LEVELS[confidence], adjust, total },
        }),
      );
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
      await saveResponse(
        api.GET("/api/v1/Projects({key})/PowerPointExport/{exportId}", { params: { path: { key: String(projectId), exportId: job.exportId } }, parseAs: "blob" }),
        job.fileName ?? `${base}.pptx`,
      );
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
          <Button variant="secondary" busy={busy === "csv"} onClick={() => void file("csv")}>
            Download CSV
          </Button>
          <Button variant="secondary" busy={busy === "excel"} onClick={() => void file("excel")}>
            Download Excel
          </Button>
        </div>
        {dataJobs.map((j) => (
          <div key={j.jobId} className="space-y-2 rounded-lg border border-ink-200 p-3" data-testid="data-export-job">
            {j.state === "running" ? <p className="text-xs text-ink-600">{DATA_WORDS[j.kind]}: queued, as exports you or your team started are still running; it downloads when ready.</p> : null}
            <div className="flex justify-between text-xs text-ink-600">
              <span>{j.state === "done" ? `Downloaded ${j.fileName ?? ""}` : j.state === "failed" ? "Failed" : (j.message ?? "Queued")}</span>
              <span>{j.pct}%</span>
            </div>
            <div
              className="h-2 overflow-hidden rounded-full bg-ink-100"
              role="progressbar"
              aria-label={`${DATA_WORDS[j.kind]} export progress`}
              aria-valuenow={j.pct}
              aria-valuemin={0}
              aria-valuemax={100}
            >
              <div className="h-full bg-brand-600 transition-all" style={{ width: `${j.pct}%` }} />
            </div>
            {j.state === "done" && j.exportId ? (
              <Button
                size="sm"
                variant="secondary"
                onClick={() => {
                  fetched.current.delete(j.jobId);
                  void fetchQueued(j.jobId, j.exportId!).catch(handleError);
                }}
              >
                Download {DATA_WORDS[j.kind]} again
              </Button>
            ) : null}
            {j.state === "failed" ? (
              <p className="text-rose-700" role="alert">
                {j.error}
              </p>
            ) : null}
          </div>
        ))}
      </section>
      <section className="space-y-2">
        <h3 className="font-semibold text-ink-900">PowerPoint</h3>
        <Button busy={busy === "pptx" || job?.state === "running"} onClick={() => void powerpoint()}>
          Create PowerPoint
        </Button>
        {job ? (
          <div className="space-y-2 rounded-lg border border-ink-200 p-3" data-testid="pptx-job">
            <div className="flex justify-between text-xs text-ink-600">
              <span>{job.state === "done" ? "Ready" : job.state === "failed" ? "Failed" : (job.message ?? "Queued")}</span>
              <span>{job.pct}%</span>
            </div>
            <div className="h-2 overflow-hidden rounded-full bg-ink-100" role="progressbar" aria-label="PowerPoint export progress" aria-valuenow={job.pct} aria-valuemin={0} aria-valuemax={100}>
              <div className="h-full bg-brand-600 transition-all" style={{ width: `${job.pct}%` }} />
            </div>
            {job.state === "done" ? (
              <Button size="sm" onClick={() => void downloadDeck()}>
                Download PowerPoint
              </Button>
            ) : null}
            {job.state === "failed" ? (
              <p className="text-rose-700" role="alert">
                {job.error}
              </p>
            ) : null}
          </div>
        ) : null}
      </section>
    </div>
  );
}
