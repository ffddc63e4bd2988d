// `ideally export ID --format csv|xlsx|pptx [-o FILE]`: ExportCsv and ExportExcel are files the API
// answers directly (streamed to disk with a byte count); PowerPointExport is a queued job followed on
// its websocket channel (jobs.ts) until Success names the export, then downloaded.
import { createWriteStream } from "node:fs";
import { idArg } from "../args.ts";
import { apiError, usageError } from "../errors.ts";
import { filterParam, filtersFor } from "../filters.ts";
import { followJob } from "../jobs.ts";
import { printJson, progressBar } from "../output.ts";
import { ok, signedIn, type Api, type GlobalOptions } from "../session.ts";

export interface ExportOptions extends GlobalOptions {
  format?: string;
  output?: string;
  filter?: string[];
  segment?: string;
  benchmark?: string;
  allSegments?: boolean;
  timeout?: string;
}

const FORMATS = ["csv", "xlsx", "pptx"] as const;
type Format = (typeof FORMATS)[number];

export async function runExport(id: string, o: ExportOptions): Promise<void> {
  const key = idArg(id);
  const format = o.format as Format;
  if (!FORMATS.includes(format)) throw usageError(`--format: expected csv, xlsx or pptx, got '${o.format ?? ""}'`);
  if (o.benchmark !== undefined && !/^\d{1,2}$/.test(o.benchmark)) throw usageError(`--benchmark: expected a benchmark type id, got '${o.benchmark}'`);
  const api = signedIn(o);
  const filters = await filtersFor(api, o);
  const bar = progressBar(`Exporting ${format}`);
  let res: Response;
  if (format === "csv") {
    const r = await api.client.GET("/api/v1/Projects({key})/ExportCsv", { params: { path: { key }, query: filterParam(filters) }, parseAs: "stream" });
    ok(r, `exporting project ${id} as CSV`);
    res = r.response;
  } else if (format === "xlsx") {
    const r = await api.client.GET("/api/v1/Projects({key})/ExportExcel", {
      params: {
        path: { key },
        query: { ...filterParam(filters), ...(o.segment ? { segmentId: o.segment } : {}), ...(o.allSegments ? { includeAllSegments: "true" as const } : {}), ...(o.benchmark ? { benchmarkTypeId: o.benchmark } : {}) },
      },
      parseAs: "stream",
    });
    ok(r, `exporting project ${id} as Excel`);
    res = r.response;
  } else {
    res = await powerPoint(api, key, filters, o.benchmark ? Number(o.benchmark) : null, bar, Number(o.timeout ?? 600) * 1000);
  }
  const file = o.output ?? fileNameOf(res) ?? `project-${key}.${format}`;
  const bytes = await save(res, file, format === "pptx" ? undefined : bar);
  bar.done(`${bytes} bytes`);
  if (o.json) printJson({ projectId: Number(key), format, file, bytes });
  else process.stdout.write(`Saved ${file} (${bytes} bytes)\n`);
}

function fileNameOf(res: Response): string | null {
  const m = /filename="?([^";]+)"?/.exec(res.headers.get("content-disposition") ?? "");
  // Only a plain name: never a path from the server.
  return m && !/[\\/]/.test(m[1]) && !m[1].startsWith(".") ? m[1] : null;
}

async function save(res: Response, file: string, bar?: ReturnType<typeof progressBar>): Promise<number> {
  const total = Number(res.headers.get("content-length") ?? 0);
  const out = createWriteStream(file);
  let bytes = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
      // Without a length (a streamed CSV) the bar shows bytes, not a share.
      bar?.update(total ? (bytes / total) * 100 : 0, total ? "" : `${bytes} bytes`);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  }
  return bytes;
}

async function powerPoint(api: Api, key: string, filters: object, benchmarkTypeId: number | null, bar: ReturnType<typeof progressBar>, timeoutMs: number): Promise<Response> {
  const done = await followJob(
    api,
    async () =>
      ok(await api.client.POST("/api/v1/Projects({key})/PowerPointExport", { params: { path: { key } }, body: { filters, benchmarkTypeId } }), `exporting project ${key} as PowerPoint`),
    bar,
    timeoutMs,
  );
  const exportId = (done.result as { exportId?: string } | null)?.exportId;
  if (!exportId) throw apiError("the PowerPoint job finished without an export id");
  const r = await api.client.GET("/api/v1/Projects({key})/PowerPointExport/{exportId}", { params: { path: { key, exportId } }, parseAs: "stream" });
  ok(r, "downloading the deck");
  return r.response;
}
