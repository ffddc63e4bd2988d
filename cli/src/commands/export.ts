// `ideally export ID [--format csv|xlsx|pptx] [-o FILE|-] [--force]`: ExportCsv and ExportExcel are files the API
// answers directly (streamed to disk with a byte count), or, beyond the bound on exports in flight
// (record 0134), a queued job (202) followed like the deck's; PowerPointExport is a queued job followed on
// its websocket channel (jobs.ts) until Success names the export, then downloaded. The format comes
// from --format or the file's extension (never both disagreeing); a file is never overwritten
// without --force, and is written beside the target and renamed into place; `-o -` is stdout.
import { closeSync, createWriteStream, existsSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { isatty } from "node:tty";
import { basename, dirname, extname, join, resolve } from "node:path";
import { benchmarkArg, idArg } from "../args.ts";
import { apiError, usageError } from "../errors.ts";
import { checkFilters, filterParam, filtersFor, type ResponseFilter } from "../filters.ts";
import { BENCHMARK_LABELS, chooseBenchmark, DEFAULT_BENCHMARK_TYPE, defaultTotal } from "@ideally/contracts/results-view";
import type { Schemas } from "@ideally/contracts";
import { followJob } from "../jobs.ts";
import { PowerPointJobResult } from "@ideally/contracts/events";
import { printJson, progressBar } from "../output.ts";
import { fieldedProject } from "../fielded.ts";
import { ok, signedIn, type Api, type GlobalOptions } from "../session.ts";

export interface ExportOptions extends GlobalOptions {
  format?: string;
  output?: string;
  force?: boolean;
  filter?: string[];
  segment?: string;
  benchmark?: string;
  allSegments?: boolean;
  timeout?: string;
  confidence?: string;
  adjust?: string;
  total?: string;
}

const LEVELS = { "90": 90, "95": 95, "99": 99 } as const;
const ADJUST = ["bh", "bonferroni", "none"] as const;
const TOTALS = ["sample", "markets"] as const;
const isLevel = (v: string): v is keyof typeof LEVELS => v in LEVELS;
const isAdjust = (v: string): v is (typeof ADJUST)[number] => ADJUST.some((a) => a === v);
const isTotal = (v: string): v is (typeof TOTALS)[number] => TOTALS.some((t) => t === v);

/** xlsx and pptx: the results view's settings (QualResults' confidence, adjust and total), checked before anything is sent. */
export function viewOf(o: ExportOptions): { confidence?: keyof typeof LEVELS; adjust?: (typeof ADJUST)[number]; total?: (typeof TOTALS)[number] } {
  const v: ReturnType<typeof viewOf> = {};
  if (o.confidence !== undefined) {
    if (!isLevel(o.confidence)) throw usageError(`--confidence: expected 90, 95 or 99, got '${o.confidence}'`);
    v.confidence = o.confidence;
  }
  if (o.adjust !== undefined) {
    if (!isAdjust(o.adjust)) throw usageError(`--adjust: expected bh, bonferroni or none, got '${o.adjust}'`);
    v.adjust = o.adjust;
  }
  if (o.total !== undefined) {
    if (!isTotal(o.total)) throw usageError(`--total: expected sample or markets, got '${o.total}'`);
    v.total = o.total;
  }
  return v;
}

const FORMATS = ["csv", "xlsx", "pptx"] as const;
type Format = (typeof FORMATS)[number];
const isFormat = (v: string): v is Format => FORMATS.some((f) => f === v);

/** The format: --format, else the -o file's extension; both given must agree. */
export function formatOf(o: ExportOptions): Format {
  const flag = o.format?.toLowerCase();
  if (flag !== undefined && !isFormat(flag)) throw usageError(`--format: expected csv, xlsx or pptx, got '${o.format}'`);
  const ext = o.output && o.output !== "-" ? extname(o.output).slice(1).toLowerCase() : "";
  const fromName = isFormat(ext) ? ext : undefined;
  if (flag && fromName && flag !== fromName) throw usageError(`--format ${flag} but -o ${o.output} names a .${fromName} file: give one, or make them agree`);
  const format = flag ?? fromName;
  if (!format) {
    throw usageError(
      o.output && o.output !== "-"
        ? `-o ${o.output}: cannot tell the format from '.${ext}'; give --format csv, xlsx or pptx`
        : "--format csv, xlsx or pptx is required (or -o FILE with one of those extensions)",
    );
  }
  return format;
}

/** A file that is a terminal (/dev/tty, or /dev/stdout while stdout is one). */
function isTerminal(file: string): boolean {
  try {
    if (!statSync(file).isCharacterDevice()) return false;
    const fd = openSync(file, "r");
    try {
      return isatty(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * xlsx and pptx are binary: never written into a terminal (issue 38, as gh refuses binary data
 * there), to stdout (`-o -`) or to a file that is one. Piped, they go.
 */
function refuseBinaryOnTerminal(format: Format, output: string | undefined): void {
  if (format === "csv" || output === undefined) return;
  // Short enough for one line at 80 columns.
  if (output === "-" && process.stdout.isTTY) throw usageError(`refusing to write binary ${format} to the terminal: use -o FILE or a pipe`);
  if (output !== "-" && isTerminal(output)) throw usageError(`refusing to write binary ${format} to the terminal (-o ${output}): use -o FILE`);
}

/** Where the file may go: an existing folder, and not over a file unless --force. Checked before the export starts. */
function checkTarget(file: string, force: boolean): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw usageError(`-o ${file}: no folder ${dir}`);
  if (!existsSync(file)) return;
  const st = statSync(file);
  if (st.isDirectory()) throw usageError(`${file} is a folder; name a file`);
  // A device or pipe (-o /dev/stdout) is written to, not replaced.
  if (st.isFile() && !force) throw usageError(`${file} exists; --force overwrites it`);
}

/**
 * The results page's view where the command leaves it open (issue 37): the benchmark the page
 * would choose (type 1 when the project's markets have it, else the first available: the page's
 * own chooseBenchmark, contracts/results-view.ts) and, over more than one market, the all-markets
 * total. One line on stderr says what was chosen, so the workbook and the deck are read as the page
 * reads them and the reader knows it.
 */
async function pageDefaults(api: Api, key: string, filters: ResponseFilter, benchmark: string | undefined, total: string | undefined): Promise<{ benchmarkTypeId?: number; total?: "markets" }> {
  const out: { benchmarkTypeId?: number; total?: "markets" } = {};
  const said: string[] = [];
  let regions = filters.regionIds ?? null;
  if (!regions?.length) {
    const p = ok(
      await api.client.GET("/api/v1/Projects({key})", { params: { path: { key }, query: { $select: "id", $expand: "projectsRegions($select=regionId)" } } }),
      `reading project ${key}'s markets`,
    );
    regions = (p.projectsRegions ?? []).map((r) => r.regionId).filter((r): r is number => typeof r === "number");
  }
  if (benchmark === undefined) {
    const b = ok(
      await api.client.GET("/api/v1/Projects({key})/Benchmarks", { params: { path: { key }, query: regions.length ? { regionIds: JSON.stringify(regions) } : {} } }),
      `reading project ${key}'s benchmarks`,
    );
    const id = chooseBenchmark(b.value, null);
    if (id !== null) {
      out.benchmarkTypeId = id;
      const name = BENCHMARK_LABELS[id] ?? b.value.find((x) => x.benchmarkTypeId === id)?.benchmarkName ?? `type ${id}`;
      said.push(`benchmark ${name} (type ${id}${id === DEFAULT_BENCHMARK_TYPE ? "" : `; ${BENCHMARK_LABELS[DEFAULT_BENCHMARK_TYPE]} is not available for these markets`})`);
    }
  }
  if (total === undefined && defaultTotal(regions.length) === "markets") {
    out.total = "markets";
    said.push("the all-markets total");
  }
  if (said.length) {
    const how =
      said.length > 1
        ? "the results page's defaults; --benchmark and --total choose others"
        : out.total
          ? "the results page's default; --total chooses another"
          : "the results page's default; --benchmark chooses another";
    process.stderr.write(`view: ${said.join(", ")} (${how})\n`);
  }
  return out;
}

export async function runExport(id: string, o: ExportOptions): Promise<void> {
  const key = idArg(id);
  const format = formatOf(o);
  const toStdout = o.output === "-";
  if (toStdout && o.json) throw usageError("-o - writes the file to stdout; --json cannot share it");
  refuseBinaryOnTerminal(format, o.output);
  if (o.output && !toStdout) checkTarget(o.output, o.force === true);
  if (o.benchmark !== undefined) benchmarkArg(o.benchmark);
  checkFilters(o);
  const view = viewOf(o);
  const api = signedIn(o);
  // A project that has not fielded has no respondents: say so instead of writing an empty file.
  await fieldedProject(api, key, "responses to export", "exports follow fielding");
  const filters = await filtersFor(api, o);
  // xlsx and pptx read a results view: what the options leave open is the results page's default.
  const page = format === "csv" ? {} : await pageDefaults(api, key, filters, o.benchmark, view.total);
  if (page.benchmarkTypeId !== undefined) o = { ...o, benchmark: String(page.benchmarkTypeId) };
  if (page.total) view.total = page.total;
  const bar = progressBar(`Exporting ${format}`);
  const timeoutMs = Number(o.timeout ?? 600) * 1000;
  let res: Response;
  if (format === "csv") {
    const r = await api.client.GET("/api/v1/Projects({key})/ExportCsv", { params: { path: { key }, query: filterParam(filters) }, parseAs: "stream" });
    ok(r, `exporting project ${id} as CSV`);
    res = r.response.status === 202 ? await queuedFile(api, key, "ExportCsv", r.response, bar, timeoutMs) : r.response;
  } else if (format === "xlsx") {
    const r = await api.client.GET("/api/v1/Projects({key})/ExportExcel", {
      params: {
        path: { key },
        query: {
          ...filterParam(filters),
          ...(o.segment ? { segmentId: o.segment } : {}),
          ...(o.allSegments ? { includeAllSegments: "true" as const } : {}),
          ...(o.benchmark ? { benchmarkTypeId: o.benchmark } : {}),
          ...view,
        },
      },
      parseAs: "stream",
    });
    ok(r, `exporting project ${id} as Excel`);
    res = r.response.status === 202 ? await queuedFile(api, key, "ExportExcel", r.response, bar, timeoutMs) : r.response;
  } else {
    const { confidence, ...rest } = view;
    res = await powerPoint(api, key, { filters, benchmarkTypeId: o.benchmark ? Number(o.benchmark) : null, ...rest, ...(confidence ? { confidence: LEVELS[confidence] } : {}) }, bar, timeoutMs);
  }
  if (toStdout) {
    const bytes = await toPipe(res);
    bar.done(`${bytes} bytes`);
    return;
  }
  const file = o.output ?? fileNameOf(res) ?? `project-${key}.${format}`;
  // The server's name is checked now that it is known (a name given with -o was checked before).
  if (!o.output) checkTarget(file, o.force === true);
  const bytes = await save(res, file, format === "pptx" ? undefined : bar);
  bar.done(`${bytes} bytes`);
  if (o.json) printJson({ projectId: Number(key), format, file, bytes });
  else process.stdout.write(`Saved ${file} (${bytes} bytes)\n`);
}

/** A response body's chunks as they arrive (none for no body); the reader is released when the loop stops early. */
async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** -o -: the file on stdout; a reader that stops early (head) ends it with one line, not a trace. */
async function toPipe(res: Response): Promise<number> {
  let bytes = 0;
  try {
    for await (const chunk of chunksOf(res.body)) {
      bytes += chunk.byteLength;
      if (!process.stdout.write(chunk))
        await new Promise<void>((r, j) => {
          process.stdout.once("drain", () => r());
          process.stdout.once("error", j);
        });
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EPIPE") return brokenPipe(bytes);
    throw e;
  }
  return bytes;
}

function brokenPipe(bytes: number): never {
  process.stderr.write(`ideally: the reader closed the pipe after ${bytes} bytes; the rest was not written\n`);
  process.exit(0);
}

function fileNameOf(res: Response): string | null {
  const m = /filename="?([^";]+)"?/.exec(res.headers.get("content-disposition") ?? "");
  // Only a plain name: never a path from the server.
  return m && !/[\\/]/.test(m[1]) && !m[1].startsWith(".") ? m[1] : null;
}

/** Written beside the target and renamed into place, so a failed export never leaves half a file. */
async function save(res: Response, file: string, bar?: ReturnType<typeof progressBar>): Promise<number> {
  const total = Number(res.headers.get("content-length") ?? 0);
  // A character device (-o /dev/stdout) is written in place: it cannot be renamed over.
  const device = existsSync(file) && !statSync(file).isFile();
  const tmp = device ? file : join(dirname(resolve(file)), `.${basename(file)}.${process.pid}.partial`);
  const out = createWriteStream(tmp);
  let bytes = 0;
  const failed = new Promise<never>((_, reject) => out.once("error", reject));
  try {
    for await (const chunk of chunksOf(res.body)) {
      bytes += chunk.byteLength;
      if (!out.write(chunk)) await Promise.race([new Promise<void>((r) => out.once("drain", () => r())), failed]);
      // Without a length (a streamed CSV) the bar shows bytes, not a share.
      bar?.update(total ? (bytes / total) * 100 : 0, total ? "" : `${bytes} bytes`);
    }
    await Promise.race([new Promise<void>((r) => out.end(() => r())), failed]);
  } catch (e) {
    out.destroy();
    if (!device) rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EPIPE") brokenPipe(bytes);
    throw apiError(`writing ${file}: ${code ?? (e as Error).message}`);
  }
  if (!device) renameSync(tmp, file);
  return bytes;
}

/**
 * An export answered 202 (this account or its client already has as many exports in flight as the
 * API runs at once, record 0134): said in one line on stderr, followed on the job's channel, and the
 * file downloaded by the job's id once done (also when it ended before the channel was joined).
 */
async function queuedFile(api: Api, key: string, call: "ExportCsv" | "ExportExcel", answer: Response, bar: ReturnType<typeof progressBar>, timeoutMs: number): Promise<Response> {
  const { jobId } = (await answer.json()) as Schemas["ExportStarted"];
  process.stderr.write(`queued: exports already running for this account or client; following job ${jobId}\n`);
  const get = async () => {
    const path = call === "ExportCsv" ? "/api/v1/Projects({key})/ExportCsv/{exportId}" : "/api/v1/Projects({key})/ExportExcel/{exportId}";
    const r = await api.client.GET(path, { params: { path: { key, exportId: jobId } }, parseAs: "stream" });
    if (r.response.status === 404) return null;
    ok(r, "downloading the queued export");
    return r.response;
  };
  let early: Response | null = null;
  await followJob(
    api,
    async () => ({ jobId }),
    bar,
    timeoutMs,
    async () => {
      early = await get();
      return early !== null;
    },
  );
  const res = early ?? (await get());
  if (!res) throw apiError(`job ${jobId} finished but its file is not there`);
  return res;
}

type DeckBody = Schemas["PowerPointExport"];

async function powerPoint(api: Api, key: string, body: DeckBody, bar: ReturnType<typeof progressBar>, timeoutMs: number): Promise<Response> {
  const done = await followJob(
    api,
    async () => ok(await api.client.POST("/api/v1/Projects({key})/PowerPointExport", { params: { path: { key } }, body }), `exporting project ${key} as PowerPoint`),
    bar,
    timeoutMs,
  );
  const deck = PowerPointJobResult.safeParse(done.result);
  if (!deck.success)
    throw apiError(
      `the PowerPoint job finished without the result it declares (contracts/events.ts): ${deck.error.issues[0]?.path.join(".") || "result"}: ${deck.error.issues[0]?.message ?? "invalid"}`,
    );
  const { exportId } = deck.data;
  const r = await api.client.GET("/api/v1/Projects({key})/PowerPointExport/{exportId}", { params: { path: { key, exportId } }, parseAs: "stream" });
  ok(r, "downloading the deck");
  return r.response;
}
