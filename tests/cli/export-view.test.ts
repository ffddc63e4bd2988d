// `ideally export` reads the results page's view unless told otherwise (issue 37): on the demo, where
// benchmark type 1 (all customers) rests on comparable projects, a two-market project's workbook is
// the all-markets total against type 1, as the page opens, and one line on stderr says so. Before,
// the CLI sent no benchmark (the workbook read against 'None', a flat 50%) and no total.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import type { TestDb } from "../helpers/db.ts";
import { createDemoWorldDb, demoProject, demoTeam, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let projectId = 0;
const dir = mkdtempSync(join(tmpdir(), "ideally-export-view-"));

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb());
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: DEMO_PASSWORD });
  const team = await demoTeam(tdb.db);
  await uma.json(["clients", "use", String(team)]);
  projectId = await demoProject(tdb.db, team, "Plant-based snacks idea screen");
  const markets = await tdb.db`select region_id from projects_regions where project_id = ${projectId}`;
  expect(markets.length, "the demo project has two markets").toBe(2);
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

async function cover(file: string): Promise<Map<unknown, unknown>> {
  const ExcelJS = (await import("exceljs")).default;
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const m = new Map<unknown, unknown>();
  wb.getWorksheet("Cover")!.eachRow((row) => void m.set(row.getCell(1).value, row.getCell(2).value));
  return m;
}

test("without --benchmark and --total: benchmark type 1 and the all-markets total, as the results page opens", async () => {
  const plain = join(dir, "plain.xlsx");
  const r = await uma.run(["export", String(projectId), "-o", plain]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe("view: benchmark All customers (type 1), the all-markets total (the results page's defaults; --benchmark and --total choose others)\n");
  const explicit = join(dir, "explicit.xlsx");
  const e = await uma.run(["export", String(projectId), "-o", explicit, "--benchmark", "1", "--total", "markets"]);
  expect([e.code, e.stderr]).toEqual([0, ""]);
  const [a, b] = [await cover(plain), await cover(explicit)];
  for (const k of ["Benchmark", "Benchmark top-2-box", "Total", "Weighting"]) expect(a.get(k), k).toEqual(b.get(k));
  expect(a.get("Benchmark")).not.toBe("None");
  expect(a.get("Benchmark top-2-box"), "not the flat 50% of 'None'").not.toBe(0.5);
  expect(String(a.get("Total"))).toMatch(/^All markets, weighted by population/);
}, 120_000);
