// `ideally export` writes files safely (issue 24, finding 4): an existing file is kept unless
// --force, a missing folder is one line (exit 1) before anything is downloaded, `-o -` is stdout,
// a reader that closes the pipe early ends it without a stack trace, the format comes from --format
// or the extension and the two never disagree, and a project that has not fielded is explained.
// Against a real server process, on the fixtures' Complete project 1001 (Acme Team A).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_MAIN, cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let csv = "";
const dir = mkdtempSync(join(tmpdir(), "ideally-export-"));

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["clients", "use", "1003"]);
  const token = (uma.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}/api/v1/Projects(1001)/ExportCsv`, { headers: { authorization: `Bearer ${token}`, clientId: "1003" } });
  expect(res.status).toBe(200);
  csv = await res.text();
  expect(csv.split("\n").length, "the fixture project has respondents").toBeGreaterThan(2);
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

test("an existing file is kept unless --force; the file is the API's export", async () => {
  const file = join(dir, "p.csv");
  const first = await uma.run(["export", "1001", "-o", file]);
  expect(first.code, first.stderr).toBe(0);
  expect(readFileSync(file, "utf8")).toBe(csv);
  writeFileSync(file, "keep me");
  const again = await uma.run(["export", "1001", "-o", file]);
  expect([again.code, again.stderr]).toEqual([1, `ideally: ${file} exists; --force overwrites it\n`]);
  expect(readFileSync(file, "utf8")).toBe("keep me");
  const forced = await uma.run(["export", "1001", "-o", file, "--force"]);
  expect(forced.code).toBe(0);
  expect(readFileSync(file, "utf8")).toBe(csv);
  expect(
    readdirSync(dir).filter((f) => f.includes("partial")),
    "no partial file left",
  ).toEqual([]);
});

test("a missing folder is one line, exit 1", async () => {
  const r = await uma.run(["export", "1001", "-o", join(dir, "nope", "p.csv")]);
  expect([r.code, r.stderr]).toEqual([1, `ideally: -o ${join(dir, "nope", "p.csv")}: no folder ${join(dir, "nope")}\n`]);
});

test("-o - is stdout; no file named '-'", async () => {
  const r = await uma.run(["export", "1001", "--format", "csv", "-o", "-"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(csv);
  expect(existsSync("-")).toBe(false);
  const j = await uma.run(["export", "1001", "--format", "csv", "-o", "-", "--json"]);
  expect(j.code).toBe(1);
});

test("a workbook piped: -o - with xlsx goes to stdout when it is not a terminal (tests/cli/binary-tty.test.ts)", async () => {
  const r = await uma.run(["export", "1001", "--format", "xlsx", "-o", "-"]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.slice(0, 2), "a zip (xlsx)").toBe("PK");
  expect(r.stderr).not.toContain("refusing");
});

test("a reader that stops early: no stack trace, at most one line", async () => {
  for (const out of ["-", "/dev/stdout"]) {
    const proc = Bun.spawn(["bash", "-c", `set -o pipefail; '${process.execPath}' run '${CLI_MAIN}' export 1001 --format csv -o ${out} | head -c 20; echo " rc=$?" >&2`], {
      env: { ...process.env, XDG_CONFIG_HOME: uma.home, IDEALLY_API_URL: server.base, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stdout).toBe(csv.slice(0, 20));
    expect(stderr, out).not.toContain("    at ");
    expect(stderr.trim().split("\n").length, stderr).toBeLessThanOrEqual(2);
    expect(stderr).toContain(" rc=0");
  }
}, 30_000);

test("the format: --format or the extension, never disagreeing", async () => {
  const x = join(dir, "book.xlsx");
  const r = await uma.run(["export", "1001", "-o", x]);
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(x).subarray(0, 2).toString(), "a zip (xlsx)").toBe("PK");
  const bad = await uma.run(["export", "1001", "--format", "xlsx", "-o", join(dir, "book.csv")]);
  expect([bad.code, bad.stderr]).toEqual([1, `ideally: --format xlsx but -o ${join(dir, "book.csv")} names a .csv file: give one, or make them agree\n`]);
  expect(existsSync(join(dir, "book.csv"))).toBe(false);
  const none = await uma.run(["export", "1001"]);
  expect([none.code, none.stderr]).toEqual([1, "ideally: --format csv, xlsx or pptx is required (or -o FILE with one of those extensions)\n"]);
  const unknown = await uma.run(["export", "1001", "-o", join(dir, "x.txt")]);
  expect(unknown.code).toBe(1);
  expect((await uma.run(["export", "1001", "--format", "pdf"])).code).toBe(1);
});

test("a draft's export is explained, and no file is written", async () => {
  const file = join(dir, "d.yaml");
  writeFileSync(file, "name: Not yet\ntype: Idea\nframework: idea-default\nregions: [NZ]\ntestOptions:\n  - text: A\n");
  const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", file]);
  const out = join(dir, "d.csv");
  const r = await uma.run(["export", String(id), "-o", out]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(`ideally: project ${id} 'Not yet' is Draft (0): it has not fielded, so there are no responses to export (exports follow fielding, status 400 and on)\n`);
  expect(existsSync(out)).toBe(false);
});

test("xlsx takes the results view's settings (--confidence, --adjust, --total) and refuses others before sending", async () => {
  const file = join(dir, "view.xlsx");
  const r = await uma.run(["export", "1001", "-o", file, "--confidence", "90", "--adjust", "bonferroni", "--total", "markets"]);
  expect(r.code, r.stderr).toBe(0);
  const ExcelJS = (await import("exceljs")).default;
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const cover = new Map<unknown, unknown>();
  wb.getWorksheet("Cover")!.eachRow((row) => void cover.set(row.getCell(1).value, row.getCell(2).value));
  expect(cover.get("Confidence"), "the cover's confidence").toBe(0.9);
  expect(cover.get("Multiple comparisons")).toBe("Bonferroni");
  for (const [flag, value, words] of [
    ["--confidence", "80", "--confidence: expected 90, 95 or 99, got '80'"],
    ["--adjust", "holm", "--adjust: expected bh, bonferroni or none, got 'holm'"],
    ["--total", "regions", "--total: expected sample or markets, got 'regions'"],
  ] as const) {
    const bad = await uma.run(["export", "1001", "-o", join(dir, "bad.xlsx"), flag, value]);
    expect([bad.code, bad.stderr], flag).toEqual([1, `ideally: ${words}\n`]);
    expect(existsSync(join(dir, "bad.xlsx"))).toBe(false);
  }
}, 60_000);

test("xlsx without --benchmark or --total is the results page's view: its benchmark choice and the all-markets total, said on stderr (issue 37)", async () => {
  // Project 1001 has two markets (New Zealand and Australia): the page opens on All markets with
  // benchmark type 1 when available, else the first available; the fixtures have no comparable
  // projects, so only 'None' is (tests/cli/export-view.test.ts has type 1 on the demo). Before, the
  // CLI sent neither and the workbook was the sample-weighted total, saying nothing.
  const ExcelJS = (await import("exceljs")).default;
  const cover = async (file: string) => {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const m = new Map<unknown, unknown>();
    wb.getWorksheet("Cover")!.eachRow((row) => void m.set(row.getCell(1).value, row.getCell(2).value));
    return m;
  };
  const plain = join(dir, "defaults.xlsx");
  const r = await uma.run(["export", "1001", "-o", plain]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe(
    "view: benchmark None (type 0; All customers is not available for these markets), the all-markets total (the results page's defaults; --benchmark and --total choose others)\n",
  );
  const explicit = join(dir, "explicit.xlsx");
  const e = await uma.run(["export", "1001", "-o", explicit, "--benchmark", "0", "--total", "markets"]);
  expect([e.code, e.stderr]).toEqual([0, ""]);
  const [a, b] = [await cover(plain), await cover(explicit)];
  for (const k of ["Benchmark", "Benchmark top-2-box", "Total", "Weighting"]) expect(a.get(k), k).toEqual(b.get(k));
  expect(String(a.get("Total"))).toMatch(/^All markets, weighted by population/);
  // Told one, the CLI says only what it chose itself; one market has no all-markets total.
  const sample = await uma.run(["export", "1001", "-o", join(dir, "sample.xlsx"), "--total", "sample"]);
  expect([sample.code, sample.stderr]).toEqual([0, "view: benchmark None (type 0; All customers is not available for these markets) (the results page's default; --benchmark chooses another)\n"]);
  expect(String((await cover(join(dir, "sample.xlsx"))).get("Total"))).toMatch(/^Every respondent at their own weight/);
  const nz = await uma.run(["export", "1001", "-o", join(dir, "nz.xlsx"), "--filter", "region=1", "--benchmark", "0"]);
  expect([nz.code, nz.stderr]).toEqual([0, ""]);
  // The CSV is the respondents' rows: no view, nothing to say.
  const csvRun = await uma.run(["export", "1001", "--format", "csv", "-o", join(dir, "rows.csv")]);
  expect([csvRun.code, csvRun.stderr]).toEqual([0, ""]);
}, 90_000);
