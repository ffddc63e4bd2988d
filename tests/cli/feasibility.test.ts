// `projects validate` and `projects create --dry-run` print the feasibility and quota explanation
// (issue 21) the API's Projects/FeasibilityEstimate gives, the same words the web editor shows:
// the issue's own file shape (Female at 50% in New Zealand, the `targets` example of docs/cli.md)
// is explained as open to the other answers; the same group marked "only these" is refused with
// exit 1, naming the group, and nothing is created. Crossed quota cells (record 0128) are sent too
// and explained by the API as IncidenceEstimate explains saved ones: Australia at 20/30/20/30% of
// gender x age band, where Male x 18-24 can take about 1,389 completes (25,000 x 0.492 x 0.113 =
// 1,389.9, worked in tests/api/fielding-crossed-quotas.test.ts): 6,945 completes need 1,389 there
// (fits), 6,946 need ceil(0.2 x 6,946) = 1,390 (one short: a warning, as Submit's 409 says it).
// Against a real server process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-feas-"));

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

const file = (extra: string, size = 100) => {
  const path = join(dir, `f-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    path,
    `name: Feasible
type: Idea
framework: idea-default
regions: [New Zealand]
sampleSize: ${size}
targets:
  - option: Female
    quota: 50
${extra}testOptions:
  - text: One
`,
  );
  return path;
};

const GROUP = "Gender in New Zealand: Female 50%; the other 50% is open to the question's other answers.";
const MARKET = "New Zealand: 100 completes: the panel reaches about 6,000 people there in a field period and 100% are expected to qualify, so about 6,000 completes can be delivered. Feasible.";

async function apiExplanation(body: unknown): Promise<unknown> {
  const token = (uma.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}/api/v1/Projects/FeasibilityEstimate`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, clientId: String(T), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { explanation: unknown }).explanation;
}

describe("the explanation in the CLI", () => {
  test("validate prints what the quota means and whether the market can deliver", async () => {
    const r = await uma.run(["projects", "validate", file("")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(": valid\n");
    expect(r.stdout).toContain("Feasibility (FeasibilityEstimate):");
    expect(r.stdout).toContain(`- ${MARKET}`);
    expect(r.stdout).toContain(`- ${GROUP}`);
  });

  test("create --dry-run prints it after the cost, and --json carries the API's explanation as it is", async () => {
    const text = await uma.run(["projects", "create", "--from", file(""), "--dry-run"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.indexOf("Feasibility")).toBeGreaterThan(text.stdout.indexOf("total"));
    expect(text.stdout).toContain(`- ${GROUP}`);
    const json = await uma.json<{ feasibility: unknown }>(["projects", "create", "--from", file(""), "--dry-run"]);
    // Female is reference option 4500002 (api/src/db/reference-data.sql), New Zealand region 1.
    expect(json.feasibility).toEqual(await apiExplanation({ regionIds: [1], sampleSize: 100, targets: [{ systemQuestionOptionId: 4500002, regionId: null, quotaPercent: 50 }] }));
  });

  test("an 'only these' group at 50% cannot fill: validate and --dry-run exit 1 naming the group, nothing created", async () => {
    const [before] = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects`;
    const path = file("    onlyThese: true\n");
    for (const args of [
      ["projects", "validate", path],
      ["projects", "create", "--from", path, "--dry-run"],
    ]) {
      const r = await uma.run(args);
      expect(r.code, `${args.join(" ")}: ${r.stdout}`).toBe(1);
      expect(r.stderr).toContain('"Gender"');
      expect(r.stderr).toContain("can never fill");
    }
    const [after] = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects`;
    expect(after!.n).toBe(before!.n);
  });

  test("100,000 completes in New Zealand: a warning, not a refusal", async () => {
    const r = await uma.run(["projects", "validate", file("", 100000)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Not feasible: lower the completes to 6,000 or fewer, or target less narrowly.");
  });
});

describe("crossed quota cells in validate and the dry run", () => {
  const crossedFile = (size: number, lastShare = 30) => {
    const path = join(dir, `x-${Math.random().toString(36).slice(2)}.yaml`);
    const cells: [string, string, number][] = [
      ["Male", "18-24", 20],
      ["Male", "25-34", 30],
      ["Female", "18-24", 20],
      ["Female", "25-34", lastShare],
    ];
    writeFileSync(
      path,
      `name: Crossed
type: Idea
framework: idea-default
regions: [Australia]
sampleSize: ${size}
crossedQuotas:
${cells.map(([g, a, q]) => `  - region: AU\n    cell: [${g}, ${a}]\n    quota: ${q}\n`).join("")}testOptions:
  - text: One
`,
    );
    return path;
  };
  const SHARES = "Gender × Age group in Australia: Male × 18-24 20%, Male × 25-34 30%, Female × 18-24 20%, Female × 25-34 30%, 100% in all.";

  test("6,946 completes: validate names the cell that cannot be met with Submit's figures (a warning, exit 0); --json carries the API's explanation", async () => {
    const path = crossedFile(6946);
    const r = await uma.run(["projects", "validate", path]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(": valid\n");
    expect(r.stdout).toMatch(/crossed cells +4\n/);
    expect(r.stdout).toContain(`- ${SHARES} Not feasible in every cell: Male × 18-24 needs 1,390 completes and about 1,389 can be delivered.\n`);
    const json = await uma.json<{ valid: boolean; crossedQuotas: unknown[]; feasibility: { crossed: unknown } }>(["projects", "validate", path]);
    expect(json.valid).toBe(true);
    expect(json.crossedQuotas).toHaveLength(4);
    // Male 4500001, Female 4500002, 18-24 5100001, 25-34 5100002 (api/src/db/reference-data.sql), Australia region 2.
    const cells = [
      [4500001, 5100001, 20],
      [4500001, 5100002, 30],
      [4500002, 5100001, 20],
      [4500002, 5100002, 30],
    ];
    const api = (await apiExplanation({
      regionIds: [2],
      sampleSize: 6946,
      targets: [],
      crossedQuotas: cells.map(([a, b, q]) => ({ regionId: 2, systemQuestionOptionIds: [a, b], quotaPercent: q })),
    })) as { crossed: unknown };
    expect(json.feasibility.crossed).toEqual(api.crossed);
  });

  test("6,945 completes: every cell fits, in validate and the dry run", async () => {
    const path = crossedFile(6945);
    for (const args of [
      ["projects", "validate", path],
      ["projects", "create", "--from", path, "--dry-run"],
    ]) {
      const r = await uma.run(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`- ${SHARES}\n`);
      expect(r.stdout).not.toContain("Not feasible");
    }
  });

  test("at 60 columns each line of the explanation is wrapped at spaces, its continuation indented two, every word kept, no cell's label split; piped with no width it stays whole", async () => {
    const path = crossedFile(6946);
    const whole = (await uma.run(["projects", "validate", path])).stdout;
    const r = await uma.run(["projects", "validate", path], { env: { COLUMNS: "60" } });
    expect(r.code, r.stderr).toBe(0);
    const section = r.stdout
      .slice(r.stdout.indexOf("Feasibility (FeasibilityEstimate):\n") + "Feasibility (FeasibilityEstimate):\n".length)
      .trimEnd()
      .split("\n");
    expect(section.length).toBeGreaterThan(2);
    for (const line of section) {
      expect(line.length, line).toBeLessThanOrEqual(59);
      // A crossed cell's label stays whole on one line: no line ends or starts with "×".
      expect(line.trim(), line).not.toMatch(/^×|×$/);
    }
    const items = section
      .join("\n")
      .split(/\n(?=- )/)
      .map((item) => item.replace(/\n {2}/g, " "));
    const expected = whole
      .slice(whole.indexOf("Feasibility (FeasibilityEstimate):\n") + "Feasibility (FeasibilityEstimate):\n".length)
      .trimEnd()
      .split("\n");
    expect(expected.every((l) => l.startsWith("- "))).toBe(true);
    expect(items).toEqual(expected);
  });

  test("cells adding up to 99.99%: validate and --dry-run exit 1 naming the crossing, as ChangeTargets would refuse it; nothing created", async () => {
    const [before] = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects`;
    const path = crossedFile(100, 29.99);
    for (const args of [
      ["projects", "validate", path],
      ["projects", "create", "--from", path, "--dry-run"],
    ]) {
      const r = await uma.run(args);
      expect(r.code, `${args.join(" ")}: ${r.stdout}`).toBe(1);
      expect(r.stderr).toContain(`${path}: crossedQuotas: The crossed cells of Gender × Age group add up to 99.99% in Australia: they must add up to 100%, or the run can never fill.`);
    }
    const [after] = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects`;
    expect(after!.n).toBe(before!.n);
  });
});
