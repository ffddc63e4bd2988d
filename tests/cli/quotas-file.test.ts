// Quotas round-trip through the CLI project file (issue 36): the 50/50 gender quota the web editor
// sets (one target per answer in New Zealand, "only these", 50% each) is written by `projects file`,
// and the file read back sets the same quota on another draft (`projects apply`, in one
// ChangeTargets call) and on a new one (`projects create --from`). Against a real server process.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
const MALE = 4500001;
const FEMALE = 4500002;
const AGE_18_24 = 5100001;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-quotas-file-"));

async function api<X = any>(method: string, path: string, body?: unknown): Promise<X> {
  const token = (uma.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, clientId: String(T), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = await res.json();
  expect(res.status, `${method} ${path}: ${JSON.stringify(out)}`).toBeLessThan(300);
  return out as X;
}
type Target = { systemQuestionOptionId: number; regionId: number | null; quotaPercent: number | null; onlyThese: boolean };
const targetsOf = async (id: number) =>
  (await api<{ value: Target[] }>("GET", `/api/v1/Targets?$filter=projectId eq ${id}&$select=systemQuestionOptionId,regionId,quotaPercent,onlyThese&$orderby=systemQuestionOptionId`)).value;
const draft = async (name: string, regionIds: number[]) =>
  (await api<{ id: number }>("POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds, sampleSize: 300 })).id;

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["clients", "use", String(T)]);
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

// What the web editor stores for 50/50 in New Zealand (region 1, code NZ in the reference data).
const EDITOR_50_50: Target[] = [
  { systemQuestionOptionId: MALE, regionId: 1, quotaPercent: 50, onlyThese: true },
  { systemQuestionOptionId: FEMALE, regionId: 1, quotaPercent: 50, onlyThese: true },
];

test("the editor's 50/50 quota: exported in the project file, applied to another draft, created from it", async () => {
  const source = await draft("Quota source", [1]);
  await api("POST", `/api/v1/TestOptions`, { projectId: source, conceptText: "Oat bar with honey" });
  await api("POST", `/api/v1/Projects(${source})/ChangeTargets`, { targets: EDITOR_50_50 });

  // Exported: the quota is in the file, each answer named beside its id.
  const file = join(dir, "quotas.yaml");
  const written = await uma.run(["projects", "file", String(source), "-o", file]);
  expect(written.code, written.stderr).toBe(0);
  expect(written.stderr).toContain("Not written: test option images, custom questions");
  const text = readFileSync(file, "utf8");
  expect(text).toContain(`option: ${MALE} # Gender: Male`);
  const y = parse(text) as { regions: string[]; sampleSize: number; targets: unknown[]; testOptions: unknown[] };
  expect(y.regions).toEqual(["NZ"]);
  expect(y.sampleSize).toBe(300);
  expect(y.targets).toEqual([
    { option: MALE, quota: 50, region: "NZ", onlyThese: true },
    { option: FEMALE, quota: 50, region: "NZ", onlyThese: true },
  ]);
  expect(y.testOptions).toEqual([{ text: "Oat bar with honey" }]);
  // Without --force an existing file stays.
  const again = await uma.run(["projects", "file", String(source), "-o", file]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("exists; --force overwrites it");

  // Applied to another draft (two markets, an age target): its markets and targets become the file's.
  const other = await draft("Quota target", [1, 2]);
  await api("POST", `/api/v1/Projects(${other})/ChangeTargets`, { targets: [{ systemQuestionOptionId: AGE_18_24 }] });
  const applied = await uma.json<{ projectId: number; regionIds: number[]; feasibility: { lines: string[] } }>(["projects", "apply", String(other), "--from", file]);
  expect(applied.regionIds).toEqual([1]);
  expect(applied.feasibility.lines).toContain("Gender in New Zealand: Male 50%, Female 50%, 100% in all.");
  expect(await targetsOf(other)).toEqual(EDITOR_50_50);
  const regions = (await api<{ value: { regionId: number; sampleSize: number }[] }>("GET", `/api/v1/ProjectsRegions?$filter=projectId eq ${other}&$select=regionId,sampleSize`)).value;
  expect(regions).toEqual([{ regionId: 1, sampleSize: 300 }]);

  // And a new draft from the file.
  const created = await uma.json<{ id: number }>(["projects", "create", "--from", file]);
  expect(await targetsOf(created.id)).toEqual(EDITOR_50_50);
}, 90_000);

test("a file whose shares add up to 90% is refused by apply as ChangeTargets refuses it, and the draft keeps its targets", async () => {
  const id = await draft("Quota refused", [1]);
  await api("POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: EDITOR_50_50 });
  const file = join(dir, "ninety.yaml");
  writeFileSync(
    file,
    `name: Ninety\ntype: Idea\nframework: idea-default\nregions: [NZ]\ntargets:\n  - option: ${MALE}\n    quota: 50\n    onlyThese: true\n  - option: ${FEMALE}\n    quota: 40\n    onlyThese: true\n`,
  );
  const r = await uma.run(["projects", "apply", String(id), "--from", file]);
  expect(r.code, r.stdout).not.toBe(0);
  expect(r.stderr).toContain('The quotas of the group "Gender" add up to 90% in New Zealand');
  expect(await targetsOf(id), "nothing half-written").toEqual(EDITOR_50_50);
}, 60_000);

// Crossed cells (record 0128): gender x age band in New Zealand, 25% each.
const AGE_25_34 = 5100002;
type Crossed = { regionId: number; firstOptionId: number; secondOptionId: number; quotaPercent: number };
const crossedOf = async (id: number) =>
  (await api<{ value: Crossed[] }>("GET", `/api/v1/CrossedQuotaCells?$filter=projectId eq ${id}&$select=regionId,firstOptionId,secondOptionId,quotaPercent&$orderby=firstOptionId,secondOptionId`))
    .value;
const QUARTERS: Crossed[] = [
  { regionId: 1, firstOptionId: MALE, secondOptionId: AGE_18_24, quotaPercent: 25 },
  { regionId: 1, firstOptionId: MALE, secondOptionId: AGE_25_34, quotaPercent: 25 },
  { regionId: 1, firstOptionId: FEMALE, secondOptionId: AGE_18_24, quotaPercent: 25 },
  { regionId: 1, firstOptionId: FEMALE, secondOptionId: AGE_25_34, quotaPercent: 25 },
];

test("crossed cells: exported with their answers named, applied to another draft (replacing its cells), created from the file", async () => {
  const source = await draft("Crossed source", [1]);
  await api("POST", `/api/v1/TestOptions`, { projectId: source, conceptText: "Oat bar with honey" });
  await api("POST", `/api/v1/Projects(${source})/ChangeTargets`, {
    targets: [],
    crossedQuotas: QUARTERS.map((c) => ({ regionId: c.regionId, systemQuestionOptionIds: [c.firstOptionId, c.secondOptionId], quotaPercent: c.quotaPercent })),
  });
  const file = join(dir, "crossed.yaml");
  const written = await uma.run(["projects", "file", String(source), "-o", file]);
  expect(written.code, written.stderr).toBe(0);
  const text = readFileSync(file, "utf8");
  expect(text).toContain("# Gender: Male × Age group: 18-24");
  const y = parse(text) as { crossedQuotas: unknown[] };
  expect(y.crossedQuotas).toEqual(QUARTERS.map((c) => ({ region: "NZ", cell: [c.firstOptionId, c.secondOptionId], quota: 25 })));

  // Applied to a draft with other cells (Male/Female x 18-24 at 50%): the file's cells replace them.
  const other = await draft("Crossed target", [1]);
  await api("POST", `/api/v1/Projects(${other})/ChangeTargets`, {
    targets: [],
    crossedQuotas: [MALE, FEMALE].map((o) => ({ regionId: 1, systemQuestionOptionIds: [o, AGE_18_24], quotaPercent: 50 })),
  });
  const applied = await uma.json<{ feasibility: { lines: string[] } }>(["projects", "apply", String(other), "--from", file]);
  expect(applied.feasibility.lines).toContain("Gender × Age group in New Zealand: Male × 18-24 25%, Male × 25-34 25%, Female × 18-24 25%, Female × 25-34 25%, 100% in all.");
  expect(await crossedOf(other)).toEqual(QUARTERS);

  const created = await uma.json<{ id: number }>(["projects", "create", "--from", file]);
  expect(await crossedOf(created.id)).toEqual(QUARTERS);

  // Named by their words in a file, the same cells.
  const named = join(dir, "crossed-named.yaml");
  writeFileSync(
    named,
    `name: Named\ntype: Idea\nframework: idea-default\nregions: [NZ]\ncrossedQuotas:\n${QUARTERS.map((c) => `  - region: NZ\n    cell: ["Gender: ${c.firstOptionId === MALE ? "Male" : "Female"}", "${c.secondOptionId === AGE_18_24 ? "18-24" : "25-34"}"]\n    quota: 25\n`).join("")}`,
  );
  const fromNames = await uma.json<{ id: number }>(["projects", "create", "--from", named]);
  expect(await crossedOf(fromNames.id)).toEqual(QUARTERS);
}, 90_000);
