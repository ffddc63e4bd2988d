// Issue 24, paging: every list command takes --limit, --page and --all; rows left out are named on
// stderr ("showing 1-50 of N; ..."), never on stdout, so pipes see only rows. The expected pages
// come from the database itself (the ids ordered as the command promises), not from the CLI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let ids: number[];

beforeAll(async () => {
  tdb = await createTestDb();
  // 120 more drafts for Acme Team A, so the list has pages.
  await tdb.db`insert into projects (client_id, project_name, project_type_id, status_code, framework_id, product_type, is_branded, owner_user_id, created_by_user_id)
               select ${T}, 'Paged ' || g, 1, 0, 1000, 'fmcg', false, 9003, 9003 from generate_series(1, 120) g`;
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) select ${T}, 1, g, 'top-up ' || g from generate_series(1, 60) g`;
  ids = (await tdb.db<{ id: number }[]>`select id from projects where client_id = ${T} and deleted_at is null order by id desc`).map((r) => r.id);
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  await server?.stop();
  await tdb?.drop();
}, 30_000);

const idsOf = (stdout: string) => (JSON.parse(stdout) as { id: number }[]).map((p) => p.id);

describe("projects list", () => {
  test("by default the first 50, the hint on stderr only", async () => {
    expect(ids.length).toBeGreaterThan(120);
    const r = await uma.run(["projects", "list", "--json"]);
    expect(r.code).toBe(0);
    expect(idsOf(r.stdout), "stdout is the JSON rows and nothing else").toEqual(ids.slice(0, 50));
    expect(r.stderr).toBe(`showing 1-50 of ${ids.length}; --page 2 for more, --all for all\n`);
    const text = await uma.run(["projects", "list"]);
    expect(text.stdout).not.toContain("showing");
    expect(text.stdout.trimEnd().split("\n")).toHaveLength(52); // header, rule, 50 rows
    expect(text.stderr).toBe(r.stderr);
  });
  test("--limit and --page pick the page; the last page says where it ends", async () => {
    const p3 = await uma.run(["projects", "list", "--limit", "20", "--page", "3", "--json"]);
    expect(idsOf(p3.stdout)).toEqual(ids.slice(40, 60));
    expect(p3.stderr).toBe(`showing 41-60 of ${ids.length}; --page 4 for more, --all for all\n`);
    const lastPage = Math.ceil(ids.length / 20);
    const last = await uma.run(["projects", "list", "--limit", "20", "--page", String(lastPage), "--json"]);
    expect(idsOf(last.stdout)).toEqual(ids.slice((lastPage - 1) * 20));
    expect(last.stderr).toBe(`showing ${(lastPage - 1) * 20 + 1}-${ids.length} of ${ids.length}; --all for all\n`);
    const past = await uma.run(["projects", "list", "--limit", "20", "--page", String(lastPage + 1), "--json"]);
    expect([past.code, idsOf(past.stdout), past.stderr]).toEqual([0, [], `no rows on page ${lastPage + 1} (${ids.length} in all)\n`]);
  });
  test("--all reads every page, no hint; a page that holds everything has none either", async () => {
    const all = await uma.run(["projects", "list", "--all", "--json"]);
    expect([idsOf(all.stdout), all.stderr]).toEqual([ids, ""]);
    const whole = await uma.run(["projects", "list", "--limit", "1000", "--json"]);
    expect([idsOf(whole.stdout), whole.stderr]).toEqual([ids, ""]);
    const filtered = await uma.run(["projects", "list", "--search", "paged 11", "--json"]);
    expect([idsOf(filtered.stdout).length, filtered.stderr], "Paged 11 and 110-119").toEqual([11, ""]);
  });
  test("limits at their edges, and options that do not go together: exit 1", async () => {
    expect(idsOf((await uma.run(["projects", "list", "--limit", "1", "--json"])).stdout)).toEqual(ids.slice(0, 1));
    for (const [args, message] of [
      [["--limit", "0"], "--limit: expected a whole number from 1 to 1000, got '0'"],
      [["--limit", "1001"], "--limit: expected a whole number from 1 to 1000, got '1001'"],
      [["--limit", "ten"], "--limit: expected a whole number from 1 to 1000, got 'ten'"],
      [["--page", "0"], "--page: expected a whole number from 1 to 1000000, got '0'"],
      [["--all", "--limit", "5"], "--all reads every row: it does not go with --limit or --page"],
      [["--limit", "5", "--top", "5"], "--limit and --top are the same option: give one"],
    ] as [string[], string][]) {
      const r = await uma.run(["projects", "list", ...args]);
      expect([r.code, r.stdout, r.stderr], args.join(" ")).toEqual([1, "", `ideally: ${message}\n`]);
    }
  });
});

test("credits ledger pages the same way (--top still works as --limit)", async () => {
  const rows = (await tdb.db<{ id: number }[]>`select id from credit_logs where client_id = ${T} order by created_at desc, id desc`).map((r) => r.id);
  const admin = cliHarness(server.base);
  try {
    await admin.json(["login", "--email", "admin@acme.test", "--password-stdin"], { stdin: "Password123!" });
    const p2 = await admin.run(["credits", "ledger", "--limit", "25", "--page", "2", "--json"]);
    expect([idsOf(p2.stdout), p2.stderr]).toEqual([rows.slice(25, 50), `showing 26-50 of ${rows.length}; --page 3 for more, --all for all\n`]);
    expect(idsOf((await admin.run(["credits", "ledger", "--top", "7", "--json"])).stdout)).toEqual(rows.slice(0, 7));
    expect(idsOf((await admin.run(["credits", "ledger", "--all", "--json"])).stdout)).toEqual(rows);
  } finally {
    admin.dispose();
  }
});

test("--all reads past one server page (1000 rows, SERVER_PAGE): every ledger row, in order", async () => {
  // 1000 more rows for Acme Team A: the ledger then holds over 1000, two server pages.
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) select ${T}, 1, 1, 'bulk ' || g from generate_series(1, 1000) g`;
  const rows = (await tdb.db<{ id: number }[]>`select id from credit_logs where client_id = ${T} order by created_at desc, id desc`).map((r) => r.id);
  expect(rows.length, "more than one server page").toBeGreaterThan(1000);
  const admin = cliHarness(server.base);
  try {
    await admin.json(["login", "--email", "admin@acme.test", "--password-stdin"], { stdin: "Password123!" });
    const all = await admin.run(["credits", "ledger", "--all", "--json"]);
    expect([all.code, idsOf(all.stdout), all.stderr]).toEqual([0, rows, ""]);
  } finally {
    admin.dispose();
  }
}, 60_000);

test("lookups are whole by default and page on request", async () => {
  const all = await uma.run(["targets", "--json"]);
  const every = JSON.parse(all.stdout) as { id: number }[];
  expect([every.length > 30, all.stderr]).toEqual([true, ""]);
  const p2 = await uma.run(["targets", "--limit", "10", "--page", "2", "--json"]);
  expect(JSON.parse(p2.stdout)).toEqual(every.slice(10, 20));
  expect(p2.stderr).toBe(`showing 11-20 of ${every.length}; --page 3 for more, --all for all\n`);
  const ind = await uma.run(["industries", "--limit", "5", "--page", "3", "--json"]);
  expect([(JSON.parse(ind.stdout) as unknown[]).length, ind.stderr], "SPEC's 14 industries").toEqual([4, "showing 11-14 of 14; --all for all\n"]);
  const bad = await uma.run(["markets", "--page", "2"]);
  expect([bad.code, bad.stderr]).toEqual([1, "ideally: --page needs --limit (this list is shown whole by default)\n"]);
});
