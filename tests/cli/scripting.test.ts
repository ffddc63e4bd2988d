// The CLI at gh's level for scripts and CI (issue 38): IDEALLY_TOKEN instead of the stored login and
// `ideally auth token`; `ideally api PATH` (method, fields, paging, --jq) with the tenant header as
// other commands send it; `--json FIELDS` and `--jq EXPR` on the listing commands. Against a real
// server process; expected rows read from the API directly with the same token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let ada: CliHarness;
let bare: CliHarness;
let sam: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-scripting-"));

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url);
  [uma, ada, bare, sam] = [cliHarness(server.base), cliHarness(server.base), cliHarness(server.base), cliHarness(server.base)];
  await sam.json(["login", "--email", "staff@ideally.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await ada.json(["login", "--email", "admin@acme.test", "--password-stdin"], { stdin: "Password123!" });
}, 120_000);
afterAll(async () => {
  for (const h of [uma, ada, bare, sam]) h?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

const tokenOf = (h: CliHarness) => (h.config().session as { accessToken: string }).accessToken;

/** The API read directly with a token and the tenant header. */
async function direct<X = unknown>(token: string, path: string): Promise<X> {
  const res = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}`, clientId: String(T) } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as X;
}

describe("IDEALLY_TOKEN and auth token", () => {
  test("auth token prints the stored login's access token, alone on stdout", async () => {
    const r = await uma.run(["auth", "token"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(`${tokenOf(uma)}\n`);
    const signedOut = await bare.run(["auth", "token"]);
    expect([signedOut.code, signedOut.stdout]).toEqual([3, ""]);
  });

  test("with IDEALLY_TOKEN and no stored login, commands act as that user; nothing is written", async () => {
    const env = { IDEALLY_TOKEN: tokenOf(uma) };
    const me = await bare.json<{ email: string }>(["whoami"], { env });
    expect(me.email).toBe("user@acme.test");
    const expected = await direct<{ value: { id: number }[] }>(tokenOf(uma), "/api/v1/Projects?$select=id&$orderby=id%20desc&$top=50");
    const listed = await bare.json<{ id: number }[]>(["projects", "list"], { env: { ...env, IDEALLY_CLIENT: String(T) } });
    expect(listed.map((p) => p.id)).toEqual(expected.value.map((p) => p.id));
    expect((await bare.json<{ id: number }[]>(["--client", String(T), "projects", "list"], { env })).length).toBe(listed.length);
    expect(existsSync(bare.configFile), "no config file was written").toBe(false);
    const use = await bare.run(["clients", "use", String(T)], { env });
    expect([use.code, use.stderr]).toEqual([1, "ideally: IDEALLY_TOKEN is set: choose the client with --client ID or IDEALLY_CLIENT (`clients use` changes the stored login, which is not used)\n"]);
  });

  test("IDEALLY_TOKEN wins over a stored login, and auth status says which is used", async () => {
    const env = { IDEALLY_TOKEN: tokenOf(uma) };
    expect((await ada.json<{ email: string }>(["whoami"], { env })).email, "the token's user, not the stored admin").toBe("user@acme.test");
    const s = await ada.json<{ token: string; email: string; server: string; refreshable: boolean }>(["auth", "status"], { env });
    expect(s).toMatchObject({ token: "IDEALLY_TOKEN", email: "user@acme.test", server: "valid", refreshable: false });
    const text = await ada.run(["auth", "status"], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("token         IDEALLY_TOKEN (the stored login is not used)\n");
    expect((await ada.json<{ token: string; email: string }>(["auth", "status"])).token, "without it, the stored login").toBe("stored login");
  });

  test("a token the API refuses is exit 3 naming IDEALLY_TOKEN, and nothing is refreshed", async () => {
    const before = uma.config();
    const r = await uma.run(["whoami"], { env: { IDEALLY_TOKEN: "e30.e30.bad" } });
    expect([r.code, r.stdout]).toEqual([3, ""]);
    expect(r.stderr).toBe("ideally: the API refused the token in IDEALLY_TOKEN (expired or ended; an access token lives 15 minutes): set a new one, e.g. from `ideally auth token`\n");
    expect(uma.config(), "the stored login is untouched").toEqual(before);
    const status = await uma.run(["auth", "status"], { env: { IDEALLY_TOKEN: "e30.e30.bad" } });
    expect(status.code).toBe(3);
  });
});

describe("--json FIELDS and --jq on the listing commands", () => {
  // Each listing, as a staff account sees it (the survey runs list is staff's).
  const listings = [["markets"], ["targets"], ["categories"], ["frameworks"], ["industries"], ["clients", "list"], ["projects", "list"], ["credits", "ledger"], ["admin", "commands"]];

  test("--json FIELDS keeps the fields named; an unknown one lists the fields the rows have", async () => {
    await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 7, 'scripting top-up')`;
    for (const args of listings) {
      // The command runner's catalogue is staff's.
      const h = args[0] === "admin" ? sam : uma;
      const all = await h.json<Record<string, unknown>[]>(args);
      expect(all.length, args.join(" ")).toBeGreaterThan(0);
      // The fields are the keys the complete JSON's rows have.
      const keys = [...new Set(all.flatMap((r) => Object.keys(r)))];
      const bad = await h.run([...args, "--json", "nosuch"]);
      expect([bad.code, bad.stdout], args.join(" ")).toEqual([1, ""]);
      const listed = /^ideally: --json: unknown field 'nosuch'; this list has (.*)\n$/.exec(bad.stderr)?.[1]?.split(", ");
      expect(listed?.sort(), `${args.join(" ")}: ${bad.stderr}`).toEqual([...keys].sort());
      const two = keys.slice(0, 2);
      const some = await h.run([...args, "--json", two.join(",")]);
      expect(some.code, some.stderr).toBe(0);
      expect(JSON.parse(some.stdout)).toEqual(all.map((r) => Object.fromEntries(two.map((k) => [k, r[k] ?? null]))));
    }
  }, 120_000);

  test("projects list --json id,projectName is the API's rows with those fields", async () => {
    const api = await direct<{ value: { id: number; projectName: string }[] }>(tokenOf(uma), "/api/v1/Projects?$select=id,projectName&$orderby=id%20desc&$top=50");
    const r = await uma.run(["projects", "list", "--json", "id,projectName"]);
    expect(JSON.parse(r.stdout)).toEqual(api.value.map((p) => ({ id: p.id, projectName: p.projectName })));
  });

  test("--jq filters the rows: one output a line, strings raw (as jq -r and gh --jq)", async () => {
    const api = await direct<{ value: { id: number; statusCode: number; projectName: string }[] }>(tokenOf(uma), "/api/v1/Projects?$select=id,statusCode,projectName&$orderby=id%20desc&$top=50");
    const done = api.value.filter((p) => p.statusCode >= 800);
    expect(done.length, "the demo data has fielded projects").toBeGreaterThan(0);
    const ids = await uma.run(["projects", "list", "--jq", ".[] | select(.statusCode >= 800) | .id"]);
    expect([ids.code, ids.stderr]).toEqual([0, ""]);
    expect(ids.stdout).toBe(done.map((p) => `${p.id}\n`).join(""));
    const names = await uma.run(["projects", "list", "--jq", ".[0].projectName"]);
    expect(names.stdout, "a string prints raw").toBe(`${api.value[0]!.projectName}\n`);
    const markets = await uma.json<{ currency: string }[]>(["markets"]);
    const nzd = await uma.run(["markets", "--jq", 'map(select(.currency == "NZD")) | length']);
    expect(nzd.stdout).toBe(`${markets.filter((m) => m.currency === "NZD").length}\n`);
    const both = await uma.run(["projects", "list", "--json", "id", "--jq", ".[0] | keys"]);
    expect(both.stdout, "fields first, then the expression").toBe('["id"]\n');
  });

  test("a --jq expression that fails on the rows is one line, exit 1", async () => {
    const r = await uma.run(["projects", "list", "--jq", ".[0].projectName.x"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([1, "", 'ideally: --jq: cannot index string with "x"\n']);
  });
});

describe("ideally api PATH", () => {
  test("GET a path as it is or under /api/v1/, with the token and the tenant header", async () => {
    const me = await direct(tokenOf(uma), "/api/v1/Users/Me");
    for (const path of ["/api/v1/Users/Me", "Users/Me"]) {
      const r = await uma.run(["api", path]);
      expect([r.code, r.stderr], path).toEqual([0, ""]);
      expect(JSON.parse(r.stdout)).toEqual(me);
    }
    // The tenant header as other commands send it: the client's projects.
    const projects = await direct<{ value: { id: number }[] }>(tokenOf(uma), "/api/v1/Projects?$select=id");
    const ids = await uma.run(["api", "Projects?$select=id", "--jq", ".value[].id"]);
    expect(ids.stdout).toBe(projects.value.map((p) => `${p.id}\n`).join(""));
    // A leading slash is optional, as with gh api: a path the API does not answer as it is (the
    // web app would answer it with its page) is the one under /api/v1/.
    const slashed = await uma.run(["api", "/Projects?$select=id", "--jq", ".value[].id"]);
    expect([slashed.code, slashed.stdout]).toEqual([0, ids.stdout]);
    // The API's own paths outside /api/ stay as they are.
    const health = await uma.run(["api", "/healthz"]);
    expect([health.code, JSON.parse(health.stdout)]).toEqual([0, { status: "ok" }]);
  });

  test("--paginate follows @odata.nextLink and joins the pages", async () => {
    const file = join(dir, "page.yaml");
    writeFileSync(file, "name: Page filler\ntype: Message\nframework: message-comprehension\nregions: [NZ]\ntestOptions:\n  - text: Plain\n");
    for (let i = 0; i < 5; i++) await uma.json(["projects", "create", "--from", file]);
    const all = await direct<{ value: { id: number }[] }>(tokenOf(uma), "/api/v1/Projects?$select=id&$orderby=id&$top=1000");
    expect(all.value.length, "more than one page of 2").toBeGreaterThan(4);
    const one = await uma.run(["api", "Projects?$select=id&$orderby=id&$top=2"]);
    expect(JSON.parse(one.stdout)["@odata.nextLink"], "a page of 2 links the next").toBeString();
    const r = await uma.run(["api", "Projects?$select=id&$orderby=id&$top=2", "--paginate"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ value: all.value.map((p) => ({ id: p.id })) });
  });

  test("-X PATCH with -f and -F fields: a JSON body, typed values, @file and @- for stdin", async () => {
    const file = join(dir, "p.yaml");
    writeFileSync(file, "name: Api target\ntype: Message\nframework: message-comprehension\nregions: [NZ]\ntestOptions:\n  - text: Plain\n");
    const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", file]);
    const r = await uma.run(["api", "-X", "PATCH", `Projects(${id})`, "-f", "researchNote=from the api", "-F", "splitCellQuota=true", "-F", "fieldPeriodDays=21"]);
    expect(r.code, r.stderr).toBe(0);
    const after = await direct<{ researchNote: string; splitCellQuota: boolean; fieldPeriodDays: number }>(tokenOf(uma), `/api/v1/Projects(${id})`);
    expect([after.researchNote, after.splitCellQuota, after.fieldPeriodDays]).toEqual(["from the api", true, 21]);
    const note = join(dir, "note.txt");
    writeFileSync(note, "read from a file");
    await uma.run(["api", "-X", "PATCH", `Projects(${id})`, "-F", `researchNote=@${note}`]);
    expect((await direct<{ researchNote: string }>(tokenOf(uma), `/api/v1/Projects(${id})`)).researchNote).toBe("read from a file");
    await uma.run(["api", "-X", "PATCH", `Projects(${id})`, "-F", "researchNote=@-"], { stdin: "read from stdin\n" });
    expect((await direct<{ researchNote: string }>(tokenOf(uma), `/api/v1/Projects(${id})`)).researchNote).toBe("read from stdin");
  });

  test("an API error prints the answer, one line on stderr, exit 2 (401 exit 3)", async () => {
    const r = await uma.run(["api", "Projects(999999)"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ideally: GET \/api\/v1\/Projects\(999999\): .*\(HTTP 404[^)]*\)\n$/);
    expect(JSON.parse(r.stdout)).toHaveProperty("message");
    const refused = await uma.run(["api", "Users/Me"], { env: { IDEALLY_TOKEN: "e30.e30.bad" } });
    expect(refused.code).toBe(3);
    const out = await bare.run(["api", "Users/Me"]);
    expect([out.code, out.stderr]).toEqual([3, "ideally: not signed in; run `ideally login`\n"]);
  });

  test("bad options and paths off the API are usage errors (exit 1)", async () => {
    for (const [args, message] of [
      [["//evil.example/x"], "'//evil.example/x': expected a path on the API, like /api/v1/Users/Me or Projects"],
      [["https://evil.example/x"], "'https://evil.example/x': expected a path on the API, like /api/v1/Users/Me or Projects"],
      [["Users/Me", "-X", "FETCH"], "--method: expected one of GET, POST, PUT, PATCH, DELETE, HEAD, got 'FETCH'"],
      [["Projects", "--paginate", "-X", "POST"], "--paginate follows the pages of a GET"],
      [["Projects", "-f", "novalue"], "-f 'novalue': expected KEY=VALUE"],
      [["Projects", "--jq", ".value[] |"], "--jq: the expression ends too soon"],
      [["Projects", "-F", "x=@/no/such/file"], "-F: cannot read /no/such/file (ENOENT)"],
    ] as const) {
      const r = await uma.run(["api", ...args]);
      expect([r.code, r.stdout, r.stderr], args.join(" ")).toEqual([1, "", `ideally: ${message}\n`]);
    }
  });
});

describe("- for stdin where a file is read", () => {
  test("projects validate - and create --from - --dry-run read the project file from stdin", async () => {
    const yaml = "name: From stdin\ntype: Message\nframework: message-comprehension\nregions: [NZ]\ntestOptions:\n  - text: Plain\n";
    const v = await uma.json<{ file: string; valid: boolean; project: { projectName: string } }>(["projects", "validate", "-"], { stdin: yaml });
    expect([v.file, v.valid, v.project.projectName]).toEqual(["<stdin>", true, "From stdin"]);
    const text = await uma.run(["projects", "validate", "-"], { stdin: yaml });
    expect(text.stdout).toStartWith("<stdin>: valid\n");
    const wrong = await uma.run(["projects", "validate", "-"], { stdin: "name: Bad\ntype: Idea\nframework: ad-hoc\nregions: [NZ]\n" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toStartWith("ideally: <stdin>:3:12: framework: ");
    const dry = await uma.json<{ dryRun: boolean; cost: { total: number } }>(["projects", "create", "--from", "-", "--dry-run"], { stdin: yaml });
    expect(dry.dryRun).toBe(true);
    expect(dry.cost.total).toBeGreaterThan(0);
  });
});

test("login over a damaged config signs in to the API it remembered and keeps the damaged file aside", async () => {
  const h = cliHarness(server.base);
  const { mkdirSync, readFileSync, statSync } = await import("node:fs");
  mkdirSync(join(h.home, "ideally"), { recursive: true });
  const damaged = `{"api": "${server.base}", "session": {"api": "${server.base}", "accessTo`;
  writeFileSync(h.configFile, damaged);
  const r = await h.run(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!", env: { IDEALLY_API_URL: "" } });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toStartWith(`Signed in to ${server.base} as user@acme.test`);
  expect(readFileSync(`${h.configFile}.damaged`, "utf8")).toBe(damaged);
  expect(statSync(`${h.configFile}.damaged`).mode & 0o777).toBe(0o600);
  expect(h.config().api).toBe(server.base);
  h.dispose();
});

test("counts of one are singular: 1 test option, 1 custom question", async () => {
  const yaml = "name: One of each\ntype: Message\nframework: message-comprehension\nregions: [NZ]\ntestOptions:\n  - text: Plain\nquestions:\n  - text: Why?\n    type: text\n";
  const r = await uma.run(["projects", "create", "--from", "-"], { stdin: yaml });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^Created project \d+ 'One of each' \(Draft\): 1 test option, 1 custom question, 0 files uploaded\n/);
});

test("the command runner's catalogue is staff's: others get one line, exit 2", async () => {
  const r = await uma.run(["admin", "commands"]);
  expect([r.code, r.stdout, r.stderr]).toEqual([2, "", "ideally: the command runner is provider staff's; user@acme.test is not staff\n"]);
  expect((await sam.json<{ name: string }[]>(["admin", "commands"])).length).toBeGreaterThan(0);
});
