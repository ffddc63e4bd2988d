// Numbers a file format can hold (issue 37): every export of every demo project (the CSV, the
// workbook, the deck), at the results page's view and against SPEC 7's 'None' line, and of a project
// whose comparison has a standard error of 0 (a concept every respondent rates top-2 on a measure,
// against the flat 50% line: z is undefined), is opened by an independent reader: openpyxl (Debian's
// python3-openpyxl) loads each workbook and reads every cell, Python's XML parser reads every part of
// the workbook and the deck, and no part of any file holds the text NaN or Infinity.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers } from "../../api/src/jobs/workers.ts";
import { powerPointJob } from "../../api/src/domains/results/powerpoint.ts";
import { createDemoWorldDb, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let tdb: TestDb;
let app: App;
let queue: Queue;
let dir: string;
const tokens = new Map<number, string>();

/** A Python 3 that has openpyxl: Debian's (apt-get install python3-openpyxl), else the one on PATH. */
async function pythonWithOpenpyxl(): Promise<string | null> {
  for (const py of ["/usr/bin/python3", "python3"]) {
    const p = Bun.spawnSync([py, "-c", "import openpyxl"], { stdout: "ignore", stderr: "ignore" });
    if (p.exitCode === 0) return py;
  }
  return null;
}

// Reads files as a reader other than ours would: openpyxl for workbooks (every cell's value), the
// standard library's XML parser for every XML part of a workbook or a deck. One process reads every
// file of the run (importing openpyxl once, not once a workbook), each file on its own: a file that
// does not open is that file's error, and the others are still read. Prints one JSON line: per file,
// its counts or its error.
const READER = `
import json, sys, traceback, zipfile, xml.etree.ElementTree as ET
import openpyxl
def read(path, kind):
    out = {"cells": 0, "parts": 0}
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.endswith(".xml") or name.endswith(".rels"):
                ET.fromstring(z.read(name))
                out["parts"] += 1
    if kind == "xlsx":
        wb = openpyxl.load_workbook(path)
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.value is not None:
                        out["cells"] += 1
                        if isinstance(c.value, float) and (c.value != c.value or c.value in (float("inf"), float("-inf"))):
                            raise ValueError("undefined number in " + ws.title + "!" + c.coordinate)
    return out
results = []
for path, kind in json.loads(sys.stdin.read()):
    try:
        results.append(read(path, kind))
    except Exception:
        results.append({"error": traceback.format_exc()[-600:]})
print(json.dumps(results))
`;

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb());
  queue = await startQueue(tdb.url, () => {});
  await registerWorkers(queue, tdb.db, [powerPointJob], { log: () => {} });
  ({ app } = await realApp(tdb.db, { extra: { queue } }));
  for (const [email, client] of [
    ["user@acme.test", "Acme Team A"],
    ["admin@globex.test", "Globex"],
  ] as const) {
    const [c] = await tdb.db<{ id: number }[]>`select id from clients where name = ${client}`;
    tokens.set(c!.id, (await login(app, email, DEMO_PASSWORD)).token);
  }
  dir = mkdtempSync(join(tmpdir(), "ideally-exports-"));
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await queue.stop({ graceful: true, timeout: 5000 });
  await tdb.drop();
}, 30_000);

const enc = (x: unknown) => encodeURIComponent(JSON.stringify(x));

async function request(client: number, path: string, init: RequestInit = {}): Promise<Response> {
  return app.request(path, { ...init, headers: { authorization: `Bearer ${tokens.get(client)}`, clientId: String(client), "content-type": "application/json", ...(init.headers ?? {}) } });
}

async function deck(client: number, projectId: number, body: Record<string, unknown>): Promise<Uint8Array> {
  const started = await request(client, `/api/v1/Projects(${projectId})/PowerPointExport`, { method: "POST", body: JSON.stringify(body) });
  const { jobId } = (await started.json()) as { jobId: string };
  expect(started.status).toBe(202);
  for (let i = 0; i < 1200; i++) {
    const [r] = await tdb.db<{ id: string }[]>`select id::text from export_files where job_id = ${jobId}`;
    if (r) {
      const res = await request(client, `/api/v1/Projects(${projectId})/PowerPointExport/${r.id}`);
      expect(res.status).toBe(200);
      return new Uint8Array(await res.arrayBuffer());
    }
    const [failed] = await tdb.db<{ state: string }[]>`select state from pgboss.job where id = ${jobId}::uuid and state = 'failed'`;
    if (failed) throw new Error(`deck of project ${projectId} failed`);
    await Bun.sleep(100);
  }
  throw new Error(`deck of project ${projectId} not written`);
}

/** Every text of a zip's parts (or a plain file), searched for NaN and Infinity. */
async function undefinedText(body: Uint8Array, zipped: boolean): Promise<string[]> {
  const found: string[] = [];
  const look = (name: string, text: string) => {
    for (const m of text.matchAll(/NaN|-?Infinity/g)) found.push(`${name}: …${text.slice(Math.max(0, m.index! - 40), m.index! + 20)}…`);
  };
  if (!zipped) look("file", new TextDecoder().decode(body));
  else {
    const zip = await JSZip.loadAsync(body);
    for (const name of Object.keys(zip.files)) {
      if (zip.files[name]!.dir) continue;
      if (/\.(xml|rels|csv|txt)$/.test(name)) look(name, await zip.file(name)!.async("string"));
      else if (name.endsWith(".xlsx")) for (const x of await undefinedText(await zip.file(name)!.async("uint8array"), true)) found.push(`${name} > ${x}`);
    }
  }
  return found;
}

/** A file written for the reader, with the label its assertions name. */
interface Written {
  file: string;
  kind: "xlsx" | "pptx";
  label: string;
}

function write(body: Uint8Array, kind: "xlsx" | "pptx", label: string): Written {
  const file = join(dir, `${label.replace(/\W+/g, "-")}.${kind}`);
  writeFileSync(file, body);
  return { file, kind, label };
}

/** Every written file read by one reader process: per file, its counts, or its error. */
function readAll(py: string, files: Written[]): ({ cells: number; parts: number; error?: undefined } | { error: string })[] {
  const p = Bun.spawnSync([py, "-c", READER], { stdin: new TextEncoder().encode(JSON.stringify(files.map((f) => [f.file, f.kind]))), stdout: "pipe", stderr: "pipe" });
  expect(p.exitCode, `the reader: ${p.stderr.toString().slice(-600)}`).toBe(0);
  const out = JSON.parse(p.stdout.toString()) as ({ cells: number; parts: number } | { error: string })[];
  expect(out.length, "a result per file").toBe(files.length);
  return out;
}

test("every export of every demo project, and of a comparison with SE 0, opens in openpyxl and holds no NaN or Infinity", async () => {
  const py = await pythonWithOpenpyxl();
  // Not skipped: CI installs it (.ci/run); a dev machine without it is told what is missing.
  expect(py, "openpyxl is missing: install Debian's python3-openpyxl (apt-get install -y python3-openpyxl); CI's .ci/run installs it").not.toBeNull();
  // The comparison with SE 0: every respondent of the first concept of the Energy drink project rates
  // Likability top (100%, no variance), tested against the flat 50% of 'None'.
  const [energy] = await tdb.db<{ id: number }[]>`select id from projects where project_name = 'Energy drink flavour line-up'`;
  const [first] = await tdb.db<{ id: number }[]>`select id from test_options where project_id = ${energy!.id} order by sort_order, id limit 1`;
  await tdb.db`update responses set standard_answer_value = 1 where project_id = ${energy!.id} and test_option_id = ${first!.id} and standard_question_id = 5 and standard_answer_value is not null`;
  const projects = await tdb.db<{ id: number; clientId: number; name: string; markets: number[] }[]>`
    select p.id, p.client_id as "clientId", p.project_name as name, array(select region_id from projects_regions r where r.project_id = p.id order by region_id) as markets
    from projects p where p.status_code >= 800 and p.deleted_at is null order by p.id`;
  expect(projects.length, "the demo projects").toBeGreaterThan(5);
  const problems: string[] = [];
  const written: Written[] = [];
  let files = 0;
  for (const p of projects) {
    // The results page's view (benchmark type 1; with several markets, the all-markets total) and 'None'.
    for (const benchmarkTypeId of [1, 0]) {
      const view = { filters: { regionIds: p.markets }, benchmarkTypeId, total: p.markets.length > 1 ? "markets" : "sample" };
      const label = `${p.name} (benchmark ${benchmarkTypeId})`;
      const x = await request(p.clientId, `/api/v1/Projects(${p.id})/ExportExcel?filters=${enc(view.filters)}&benchmarkTypeId=${benchmarkTypeId}&total=${view.total}&includeAllSegments=true`);
      expect(x.status, `${label}: ExportExcel`).toBe(200);
      const xlsx = new Uint8Array(await x.arrayBuffer());
      problems.push(...(await undefinedText(xlsx, true)).map((m) => `${label} xlsx ${m}`));
      written.push(write(xlsx, "xlsx", label));
      const pptx = await deck(p.clientId, p.id, view);
      problems.push(...(await undefinedText(pptx, true)).map((m) => `${label} pptx ${m}`));
      written.push(write(pptx, "pptx", label));
      files += 2;
    }
    const csv = await request(p.clientId, `/api/v1/Projects(${p.id})/ExportCsv?filters=${enc({})}`);
    expect(csv.status).toBe(200);
    problems.push(...(await undefinedText(new Uint8Array(await csv.arrayBuffer()), false)).map((m) => `${p.name} csv ${m}`));
    files++;
  }
  // openpyxl reads every workbook's cells, and every part of each deck parses.
  const read = readAll(py!, written);
  for (const [i, w] of written.entries()) {
    const r = read[i]!;
    expect(r.error, `${w.label}: ${r.error}`).toBeUndefined();
    if (r.error === undefined) {
      if (w.kind === "xlsx") expect(r.cells, `${w.label}: openpyxl reads its cells`).toBeGreaterThan(50);
      else expect(r.parts, `${w.label}: every part of the deck parses`).toBeGreaterThan(5);
    }
  }
  // The SE-0 comparison is there: QualResults answers it with no p-value (null, not NaN), and the
  // workbook's p adjusted cell for it is empty.
  const qual = (await (await request(projects.find((x) => x.id === energy!.id)!.clientId, `/api/v1/Responses/QualResults?projectId=${energy!.id}&benchmarkTypeId=0`)).json()) as {
    measures: { standardQuestionId: number; results: { testOptionId: number; top2: number; se: number; vsBenchmark: { pValue: number | null; pAdjusted: number | null } }[] }[];
  };
  const cell = qual.measures.find((m) => m.standardQuestionId === 5)!.results.find((r) => r.testOptionId === first!.id)!;
  expect(cell.top2).toBe(1);
  expect(cell.se).toBe(0);
  expect(cell.vsBenchmark.pValue).toBeNull();
  expect(cell.vsBenchmark.pAdjusted).toBeNull();
  expect(files).toBe(projects.length * 5);
  expect(problems).toEqual([]);
}, 900_000);
