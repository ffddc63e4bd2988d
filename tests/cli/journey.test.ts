// The `ideally` CLI through a project's whole life, as a subprocess against a real server process:
// create from a YAML file with an image (and a dry run priced by CreditCostNow), bad files reported
// at their line, submit, staff approval, watching the simulated panel field it with --json, the
// results table, and exports in each format opened and checked against the API's own figures.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { liveMetrics, startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let sam: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-journey-"));

/** A small valid PNG (solid colour), so the upload is a real image. */
function png(w: number, h: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Uint8Array) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const v = new DataView(out.buffer);
    v.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    v.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, w);
  new DataView(ihdr.buffer).setUint32(4, h);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = new Uint8Array(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set([200, 120, 40], y * (1 + 3 * w) + 1 + 3 * x);
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", new Uint8Array())];
  return new Uint8Array(Buffer.concat(parts));
}

const IMAGE = png(16, 16);
const YAML = `# Oat bars, an idea screen in New Zealand
name: Oat bar ideas
type: Idea
framework: idea-default
regions: [New Zealand]
sampleSize: 60
testOptions:
  - text: Crunchy oat bar
    description: Honey and toasted oats
    image: oat.png
  - text: Chewy oat bar
questions:
  - text: Which flavours would you pick?
    type: multiple
    options: [Honey, Cocoa, {text: None of these, exclusive: true}]
`;

async function api<T = unknown>(token: string, path: string): Promise<T> {
  const res = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}`, clientId: String(T) } });
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return (await res.json()) as T;
}
const tokenOf = (h: CliHarness) => (h.config().session as { accessToken: string }).accessToken;

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'CLI journey top-up')`;
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  sam = cliHarness(server.base);
  writeFileSync(join(dir, "oat.png"), IMAGE);
  writeFileSync(join(dir, "oat.yaml"), YAML);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await sam.json(["login", "--email", "staff@ideally.test", "--password-stdin"], { stdin: "Password123!" });
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  sam?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

describe("project files that are wrong are reported at their line, and nothing is created", () => {
  const bad = async (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    const before = await uma.json<unknown[]>(["projects", "list"]);
    const r = await uma.run(["projects", "create", "--from", join(dir, name)]);
    expect(await uma.json<unknown[]>(["projects", "list"]), "no project was created").toHaveLength(before.length);
    expect(r.stdout).toBe("");
    return r;
  };
  test("a YAML syntax error", async () => {
    const r = await bad("syntax.yaml", YAML.replace("regions: [New Zealand]", "regions: [New Zealand"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^ideally: ${join(dir, "syntax.yaml")}:\\d+:\\d+: `));
  });
  test("a value the file format does not allow", async () => {
    const r = await bad("type.yaml", YAML.replace("type: Idea", "type: Idae"));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`ideally: ${join(dir, "type.yaml")}:3:7: type: must be one of "Idea", "Message", "Question", "Npd"\n`);
  });
  test("an unknown field, with a suggestion", async () => {
    const r = await bad("field.yaml", YAML.replace("    description:", "    descripton:"));
    expect(r.stderr).toBe(`ideally: ${join(dir, "field.yaml")}:9:5: testOptions.0.descripton: unknown field 'descripton' (did you mean 'description'?)\n`);
  });
  test("a limit of the contract's own schema (CreateProject.projectName at most 200)", async () => {
    const r = await bad("long.yaml", YAML.replace("name: Oat bar ideas", `name: ${"x".repeat(201)}`));
    expect(r.stderr).toBe(`ideally: ${join(dir, "long.yaml")}:2:7: name: must have at most 200 characters\n`);
  });
  test("an image that is not there", async () => {
    const r = await bad("image.yaml", YAML.replace("image: oat.png", "image: missing.png"));
    expect(r.stderr).toBe(`ideally: ${join(dir, "image.yaml")}:10:12: testOptions.0.image: no file ${join(dir, "missing.png")}\n`);
  });
});

let id = 0;

test("a dry run prices the file with CreditCostNow and keeps nothing", async () => {
  const before = await uma.json<unknown[]>(["projects", "list"]);
  const dry = await uma.json<{ dryRun: boolean; cost: { total: number; regions: { sampleSize: number }[] } }>(["projects", "create", "--from", join(dir, "oat.yaml"), "--dry-run"]);
  expect(dry.dryRun).toBe(true);
  expect(dry.cost.regions[0].sampleSize).toBe(60);
  expect(await uma.json<unknown[]>(["projects", "list"]), "the priced draft is gone").toHaveLength(before.length);
  const text = await uma.run(["projects", "create", "--from", join(dir, "oat.yaml"), "--dry-run"]);
  expect(text.stdout).toContain(`total       ${dry.cost.total} credits`);

  const created = await uma.json<{ id: number; testOptionIds: number[]; questionIds: number[]; uploads: { key: string }[]; cost: { total: number } }>([
    "projects",
    "create",
    "--from",
    join(dir, "oat.yaml"),
  ]);
  id = created.id;
  expect(created.testOptionIds).toHaveLength(2);
  expect(created.questionIds).toHaveLength(1);
  expect(created.cost.total, "the dry run's price is the real one").toBe(dry.cost.total);
  const cost = await api<{ total: number }>(tokenOf(uma), `/api/v1/Projects(${id})/CreditCostNow`);
  expect(cost.total).toBe(dry.cost.total);
  // The image went up and is the test option's file, byte for byte.
  const files = await api<{ value: { testOptionId: number; key: string; signedUrl: string }[] }>(tokenOf(uma), `/api/v1/Projects(${id})/ProjectFileUrls`);
  const file = files.value.find((f) => f.testOptionId === created.testOptionIds[0])!;
  expect(file.key).toBe(created.uploads[0].key);
  const bytes = Buffer.from(await (await fetch(new URL(file.signedUrl, server.base))).arrayBuffer());
  expect(bytes.equals(Buffer.from(IMAGE)), "the uploaded image, byte for byte").toBe(true);
  const show = await uma.json<{ testOptions: { conceptText: string }[]; customQuestions: { question: { questionText: string } }[] }>(["projects", "show", String(id)]);
  expect(show.testOptions.map((t) => t.conceptText)).toEqual(["Crunchy oat bar", "Chewy oat bar"]);
  expect(show.customQuestions[0].question.questionText).toBe("Which flavours would you pick?");
}, 30_000);

test("submit, staff approve to 300, watch the simulated panel field it, read the results", async () => {
  const sub = await uma.json<{ statusCode: number; charged: number }>(["projects", "submit", String(id), "--yes"]);
  expect(sub.statusCode, "a User's submission waits for approval").toBe(50);
  const denied = await uma.run(["admin", "approve", String(id)]);
  expect(denied.code, "a User cannot approve").toBe(2);
  expect(denied.stderr).toMatch(/^ideally: approve project \d+: .*\(HTTP 403 Forbidden\)\n$/);
  const steps = await sam.json<{ statusCode: number }[]>(["admin", "approve", String(id), "--to", "300"]);
  expect(steps.map((s) => s.statusCode)).toEqual([100, 200, 300]);

  const watching = uma.run(["projects", "watch", String(id), "--json", "--interval", "2"]);
  // Staff start the due wave and run fielding ticks now (the command runner's
  // TestCreateNextSchedule) once the watch is listening, instead of the test waiting for the
  // server's cron minute (30 to 35 s of nothing before the run was created): the first tick fields
  // a batch, the next ones the rest, and each batch reaches the watch live.
  for (const until = Date.now() + 60_000; !/^ideally_websocket_connections [1-9]/m.test(await liveMetrics(server.base)); ) {
    if (Date.now() > until) throw new Error("the watch never opened its live connection");
    await Bun.sleep(100);
  }
  const today = new Date().toISOString().slice(0, 10);
  for (let tick = 0; tick < 10; tick++) {
    await sam.json(["admin", "commands", "TestCreateNextSchedule", "--set", `today=${today}`]);
    const [p] = await tdb.db<{ status: number }[]>`select status_code as status from projects where id = ${id}`;
    if (p!.status >= 800) break;
  }
  const w = await watching;
  expect(w.code, w.stderr).toBe(0);
  const lines = w.stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as { event: string; data: Record<string, unknown> });
  expect(lines[0].event).toBe("State");
  const done = lines.at(-1)!;
  expect(done.event).toBe("Done");
  expect(done.data.statusCode as number).toBeGreaterThanOrEqual(800);
  expect(done.data.phase).toBe("ready");
  const runs = done.data.runs as { complete: number; target: number; surveyStatusId: number }[];
  expect(runs[0].complete, "the run filled its quota").toBe(runs[0].target);
  expect(
    lines.some((l) => l.event === "State" && l.data.phase === "fielding"),
    "it was seen fielding",
  ).toBe(true);
  expect(
    lines.some((l) => l.event === "Progress" && typeof l.data.pct === "number"),
    "with fielding progress",
  ).toBe(true);
  expect(
    lines.some((l) => l.event === "ProjectUpdated" && l.data.action === "ResponsesReceived"),
    "and live completes",
  ).toBe(true);

  const token = tokenOf(uma);
  const qual = await api<{ measures: { title: string; results: { testOptionId: number; top2: number; n: number }[] }[] }>(token, `/api/v1/Responses/QualResults?projectId=${id}&benchmarkTypeId=1`);
  const res = await uma.json<{ qual: typeof qual }>(["results", String(id)]);
  expect(res.qual, "results --json is the API's QualResults").toEqual(qual as never);
  const table = await uma.run(["results", String(id)]);
  expect(table.code).toBe(0);
  const like = qual.measures.find((m) => m.title === "Likability")!;
  const a = like.results[0];
  expect(table.stdout).toMatch(new RegExp(`Likability\\s+A Crunchy oat bar\\s+${a.n}\\s+${(a.top2 * 100).toFixed(1)}%`));
}, 240_000);

test("results verbatims: the open questions, then one question's answers as the API pages them", async () => {
  const open = await uma.json<{ projectQuestionId: number; questionText: string }[]>(["results", "verbatims", String(id)]);
  expect(open.length, "the framework's open question (what you like most)").toBeGreaterThan(0);
  const q = open[0].projectQuestionId;
  const listed = await uma.run(["results", "verbatims", String(id)]);
  expect(listed.code, "text lists them as --json does, exit 0").toBe(0);
  const textIds = listed.stdout
    .trimEnd()
    .split("\n")
    .slice(2)
    .map((l) => Number(l.trim().split(/\s+/)[0]));
  expect(textIds, "the same questions in text and --json").toEqual(open.map((x) => x.projectQuestionId));
  expect(listed.stderr).toBe(`answers: ideally results verbatims ${id} --question ${q}\n`);
  const page = await uma.json<{ value: { id: number }[] }>(["results", "verbatims", String(id), "--question", String(q), "--page-size", "5"]);
  const direct = await api<{ value: { id: number }[] }>(tokenOf(uma), `/api/v1/TextResponses/Verbatim?projectId=${id}&projectQuestionId=${q}&pageSize=5`);
  expect(page.value.map((v) => v.id)).toEqual(direct.value.map((v) => v.id));
  expect(page.value.length).toBe(5);
});

describe("exports, opened and checked", () => {
  test("csv: one row per respondent", async () => {
    const file = join(dir, "oat.csv");
    const r = await uma.json<{ file: string; bytes: number }>(["export", String(id), "--format", "csv", "-o", file]);
    expect(r.file).toBe(file);
    const text = readFileSync(file, "utf8");
    expect(readFileSync(file).byteLength).toBe(r.bytes);
    const counts = await api<{ value: { count: number }[] }>(tokenOf(uma), `/api/v1/Projects(${id})/ResponsesCount`);
    const rows = text.trimEnd().split(/\r?\n/).length - 1;
    expect(rows, "every respondent saw both concepts").toBe(Math.max(...counts.value.map((c) => c.count)));
  });
  test("xlsx: the Summary cells equal QualResults", async () => {
    const file = join(dir, "oat.xlsx");
    await uma.json(["export", String(id), "--format", "xlsx", "-o", file]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.getWorksheet("Summary")!;
    const header = (ws.getRow(1).values as unknown[]).slice(1);
    const qual = await api<{ measures: { title: string; results: { top2: number; n: number }[] }[] }>(tokenOf(uma), `/api/v1/Responses/QualResults?projectId=${id}&benchmarkTypeId=1`);
    let checked = 0;
    ws.eachRow((row, i) => {
      if (i === 1) return;
      const m = qual.measures.find((x) => x.title === row.getCell(1).value);
      if (!m) return;
      const col = (h: string) => {
        expect(header, `a column '${h}'`).toContain(h);
        return row.getCell(header.indexOf(h) + 1).value;
      };
      expect(col("Crunchy oat bar top-2-box"), `${m.title} A`).toBe(m.results[0].top2);
      expect(col("Chewy oat bar top-2-box"), `${m.title} B`).toBe(m.results[1].top2);
      expect(col("Crunchy oat bar n")).toBe(m.results[0].n);
      checked++;
    });
    expect(checked, "a row per measure").toBe(qual.measures.length);
  });
  test("pptx: every chart slide holds a native chart part", async () => {
    const file = join(dir, "oat.pptx");
    const r = await uma.json<{ bytes: number }>(["export", String(id), "--format", "pptx", "-o", file]);
    const zip = await JSZip.loadAsync(readFileSync(file));
    const slides = Object.keys(zip.files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f));
    let chartSlides = 0;
    for (const s of slides) {
      const xml = await zip.file(s)!.async("string");
      if (!xml.includes("drawingml/2006/chart")) continue;
      chartSlides++;
      const rels = await zip.file(s.replace("slides/", "slides/_rels/").replace(".xml", ".xml.rels"))!.async("string");
      const targets = [...rels.matchAll(/Target="(?:\.\.|\/ppt)\/charts\/(chart\d+\.xml)"/g)].map((m) => m[1]);
      expect(targets.length, `${s} links a chart part`).toBeGreaterThan(0);
      for (const t of targets) expect(await zip.file(`ppt/charts/${t}`)!.async("string"), `${t} is a chart`).toContain("<c:chartSpace");
    }
    expect(chartSlides, "a top-2-box chart per measure at least").toBeGreaterThan(0);
    expect(r.bytes).toBe(readFileSync(file).byteLength);
  }, 60_000);
});

// The Ink view, on a real terminal (tmux): a finished project draws its final screen and exits 0.
test.skipIf(!Bun.which("tmux"))(
  "the watch view draws in a terminal",
  async () => {
    const session = `ideally-watch-${process.pid}`;
    const cmd = `XDG_CONFIG_HOME=${uma.home} IDEALLY_API_URL=${server.base} ${process.execPath} run ${join(import.meta.dir, "../../cli/src/main.ts")} projects watch ${id}; echo EXIT=$?; sleep 30`;
    Bun.spawnSync(["tmux", "new-session", "-d", "-s", session, "-x", "110", "-y", "30", cmd]);
    try {
      let screen = "";
      for (let i = 0; i < 60 && !screen.includes("EXIT="); i++) {
        await Bun.sleep(250);
        screen = Bun.spawnSync(["tmux", "capture-pane", "-p", "-t", session]).stdout.toString();
      }
      expect(screen).toContain(`Project ${id} · Oat bar ideas`);
      expect(screen).toMatch(/Status {2}9\d\d Complete {2}\(results ready\)/);
      expect(screen).toMatch(/New Zealand \(panel\)\s+█{28} 100%\s+60\/60 {2}Closed/);
      expect(screen).toMatch(/Crunchy oat bar\s+█{28} 100%/);
      expect(screen).toContain(`Results are ready: ideally results ${id}`);
      expect(screen).toContain("EXIT=0");
    } finally {
      Bun.spawnSync(["tmux", "kill-session", "-t", session]);
    }
  },
  30_000,
);
