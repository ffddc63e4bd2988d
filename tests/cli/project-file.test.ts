// Project files checked as the server would before anything exists (issue 24, findings 1 and 2):
// a target's region in every spelling (name, code, other case, id) lands on that market, never on
// "all markets"; a market outside `regions` and the four mistakes of the old docs example are
// reported at FILE:LINE:COL by `projects validate` and `create --dry-run` with nothing created;
// docs/cli.md's own example file validates, prices (nothing left behind, not even in the trash)
// and creates. Against a real server process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { deflateSync } from "node:zlib";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-pfile-"));

/** A 2x2 PNG, so an upload is a real image. */
function png(): Uint8Array {
  const crc = (b: Uint8Array) => {
    let c = 0xffffffff;
    for (const x of b) {
      c ^= x;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
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
  new DataView(ihdr.buffer).setUint32(0, 2);
  new DataView(ihdr.buffer).setUint32(4, 2);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6]);
  return new Uint8Array(Buffer.concat([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", new Uint8Array())]));
}

async function api<X = unknown>(path: string): Promise<X> {
  const token = (uma.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}`, clientId: String(T) } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as X;
}
const projectCount = async () => (await api<{ "@odata.count": number }>("/api/v1/Projects?$count=true&$top=0"))["@odata.count"];
const trashCount = async () => (await api<{ value: unknown[] }>("/api/v1/Projects/GetTrashed?$top=1000")).value.length;

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'CLI project-file top-up')`;
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

const withRegion = (region: string) => `name: Regions
type: Idea
framework: idea-default
regions: [New Zealand, Australia]
targets:
  - option: 4500002
    quota: 50
    region: ${region}
testOptions:
  - text: One
`;

describe("finding 1: a target's region in every spelling is that market, never all markets", () => {
  // New Zealand is region 1, code NZ (api/src/db/reference-data.sql); Australia 2.
  for (const spelling of ["New Zealand", "NZ", "nz", "new zealand", '"  NEW ZEALAND "', "1", '"1"']) {
    test(`region: ${spelling}`, async () => {
      const file = join(dir, `region-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(file, withRegion(spelling));
      const checked = await uma.json<{ targets: { systemQuestionOptionId: number; regionId: number | null; quotaPercent?: number }[] }>(["projects", "validate", file]);
      expect(checked.targets).toEqual([{ systemQuestionOptionId: 4500002, regionId: 1, quotaPercent: 50 }]);
      const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", file]);
      const saved = await api<{ value: { systemQuestionOptionId: number; regionId: number | null }[] }>(`/api/v1/Targets?$filter=projectId eq ${id}&$select=systemQuestionOptionId,regionId`);
      expect(saved.value, "stored for New Zealand, not for every market").toEqual([{ systemQuestionOptionId: 4500002, regionId: 1 }]);
    }, 30_000);
  }

  for (const [spelling, message] of [
    ["USA", "USA is not one of the project's regions (New Zealand, Australia)"],
    ["US", "USA is not one of the project's regions (New Zealand, Australia)"],
    ["Narnia", "no market 'Narnia' (see `ideally markets`)"],
  ] as const) {
    test(`region: ${spelling} is refused at its line, by validate and by create, creating nothing`, async () => {
      const file = join(dir, `bad-region-${spelling}.yaml`);
      writeFileSync(file, withRegion(spelling));
      const before = [await projectCount(), await trashCount()];
      for (const args of [
        ["projects", "validate", file],
        ["projects", "create", "--from", file, "--dry-run"],
        ["projects", "create", "--from", file],
      ]) {
        const r = await uma.run(args);
        expect(r.code, args.join(" ")).toBe(1);
        expect(r.stderr).toBe(`ideally: ${file}:8:13: targets.0.region: ${message}\n`);
        expect(r.stdout).toBe("");
      }
      expect([await projectCount(), await trashCount()], "no project, no deleted draft").toEqual(before);
    }, 30_000);
  }
});

/** The YAML block under "## The project file" in docs/cli.md, as a user would copy it. */
function docsExample(): string {
  const doc = readFileSync(resolve(import.meta.dir, "../../docs/cli.md"), "utf8");
  const from = doc.indexOf("```yaml\n", doc.indexOf("## The project file"));
  expect(from, "docs/cli.md has the example").toBeGreaterThan(0);
  return doc.slice(from + 8, doc.indexOf("```\n", from + 8));
}

describe("docs/cli.md's example project file", () => {
  const file = join(dir, "docs-example.yaml");
  beforeAll(() => {
    writeFileSync(file, docsExample());
    writeFileSync(join(dir, "oat.png"), png());
    writeFileSync(join(dir, "flavours.png"), png());
  });

  test("validates, prices with nothing left behind, and creates at the price it was quoted", async () => {
    const v = await uma.run(["projects", "validate", file]);
    expect(v.stderr).toBe("");
    expect(v.code).toBe(0);
    expect(v.stdout).toStartWith(`${file}: valid\n`);
    const checked = await uma.json<{ project: { regionIds: number[]; categoryId: number; productType: string; frameworkId: number }; targets: unknown[] }>(["projects", "validate", file]);
    // Snacks is category 101, FMCG the industry fmcg, Auckland option 4200102 of New Zealand (reference-data.sql).
    expect(checked.project).toMatchObject({ regionIds: [1], categoryId: 101, productType: "fmcg", frameworkId: 1000 });
    expect(checked.targets).toEqual([
      { systemQuestionOptionId: 4500002, regionId: 1, quotaPercent: 50 },
      { systemQuestionOptionId: 4200102, regionId: null, quotaPercent: 30 },
    ]);

    const before = [await projectCount(), await trashCount()];
    const dry = await uma.json<{ dryRun: boolean; cost: { total: number } }>(["projects", "create", "--from", file, "--dry-run"]);
    expect(dry.dryRun).toBe(true);
    // docs/credits.md: NZ rate 1 x 200 completes x cell factor 1.25 (two test options)
    // x (1 + 0.20 price sensitivity + 0.15 market reach) = 337.5, rounded up.
    expect(dry.cost.total).toBe(338);
    const text = await uma.run(["projects", "create", "--from", file, "--dry-run"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("nothing was created");
    expect([await projectCount(), await trashCount()], "a dry run creates nothing, not even a deleted draft").toEqual(before);

    const made = await uma.json<{ id: number; testOptionIds: number[]; questionIds: number[]; uploads: unknown[]; cost: { total: number } }>(["projects", "create", "--from", file]);
    expect(made.testOptionIds).toHaveLength(2);
    expect(made.questionIds).toHaveLength(1);
    expect(made.uploads).toHaveLength(2);
    expect(made.cost.total, "CreditCostNow of the draft is what the dry run quoted").toBe(dry.cost.total);
    expect(await projectCount()).toBe(before[0] + 1);
  }, 60_000);

  // The four mistakes the old example made, each now found before anything exists.
  // [what, replace this, with this, the line holding the mistake, its column, the message]
  for (const [what, from, to, line, col, message] of [
    ["productType not an industry", "productType: fmcg ", "productType: snack bar ", "productType:", 14, "productType: 'snack bar' is not an industry: one of telecommunications, energy"],
    ["an option that does not exist", "option: Auckland ", "option: 451 ", "option: 451", 13, "targets.1.option: no target option 451"],
    [
      "two currencies for price questions",
      "regions: [New Zealand]",
      "regions: [New Zealand, Australia]",
      "currency: NZD",
      13,
      "priceSensitivity.currency: the project's regions use AUD and NZD: price questions need regions with one currency",
    ],
    [
      "a combination larger than the test options",
      "maxCombinationSize: 2",
      "maxCombinationSize: 3",
      "maxCombinationSize:",
      23,
      "marketReach.maxCombinationSize: at most the number of test options (2)",
    ],
  ] as const) {
    test(`${what}: FILE:LINE:COL from validate and create, nothing created`, async () => {
      const bad = join(dir, `docs-${what.replaceAll(" ", "-")}.yaml`);
      const example = docsExample();
      expect(example).toContain(from);
      const text = example.replace(from, to);
      writeFileSync(bad, text);
      const at = `${text.split("\n").findIndex((l) => l.includes(line)) + 1}:${col}: ${message}`;
      const before = [await projectCount(), await trashCount()];
      for (const args of [
        ["projects", "validate", bad],
        ["projects", "create", "--from", bad, "--dry-run"],
        ["projects", "create", "--from", bad],
      ]) {
        const r = await uma.run(args);
        expect(r.code, args.join(" ")).toBe(1);
        expect(r.stderr).toStartWith(`ideally: ${bad}:${at}`);
        expect(r.stderr.split("\n")).toHaveLength(2);
      }
      expect([await projectCount(), await trashCount()]).toEqual(before);
    }, 30_000);
  }
});
