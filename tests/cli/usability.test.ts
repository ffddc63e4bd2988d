// The CLI as a power user meets it (issue 24): lookups for writing project files, --version and
// auth status, confirmations (--yes; refused without a terminal; asked on one), exit codes of bad
// options, a damaged config reported once with its path, Ctrl-D at a prompt. Against a real server
// process; the terminal cases run under script(1), which gives the CLI a pseudo-terminal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CLI_MAIN, cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let ada: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-usab-"));
const FILE = join(dir, "p.yaml");

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 5000, 'CLI top-up')`;
  server = await startServerProcess(tdb.url);
  [uma, ada] = [cliHarness(server.base), cliHarness(server.base)];
  writeFileSync(FILE, "name: Confirm me\ntype: Message\nframework: message-comprehension\nregions: [NZ]\ntestOptions:\n  - text: Say it plainly\n");
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await ada.json(["login", "--email", "admin@acme.test", "--password-stdin"], { stdin: "Password123!" });
}, 120_000);
afterAll(async () => {
  for (const h of [uma, ada]) h?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

/**
 * The CLI on a pseudo-terminal (script -qec), typing `keys` once it has asked: when `prompt` has
 * reached the terminal (or after 20 s without it, so a prompt that never comes fails the test's
 * assertions, not its time limit). The CLI puts the terminal in raw mode before it asks
 * (cli/src/prompt.ts), so keys typed once the question shows are read as typed. The input stays open
 * until the CLI has ended. Before, the keys were typed after a fixed 2 s and the input held 3 s more:
 * 5 s a run however fast the CLI asked, and a CLI slower than 2 s to ask got its keys early.
 */
async function onTerminal(h: CliHarness, args: string[], keys: string, prompt = "[y/N]"): Promise<{ out: string; code: number }> {
  const quoted = [process.execPath, "run", CLI_MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const proc = Bun.spawn(["script", "-qec", quoted, "/dev/null"], {
    env: { ...process.env, XDG_CONFIG_HOME: h.home, IDEALLY_API_URL: server.base, NO_COLOR: "1", IDEALLY_PASSWORD: "" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  let typed = false;
  const type = () => {
    if (typed) return;
    typed = true;
    proc.stdin.write(keys);
    proc.stdin.flush();
  };
  const guard = setTimeout(type, 20_000);
  const screen = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      out += decoder.decode(chunk, { stream: true });
      if (out.includes(prompt)) type();
    }
  })();
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited, screen]);
  clearTimeout(guard);
  proc.stdin.end();
  return { out: out + err, code };
}

async function api<X = unknown>(h: CliHarness, path: string): Promise<X> {
  const token = (h.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}`, clientId: String(T) } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as X;
}

describe("lookups for project files", () => {
  test("markets: names, codes, currencies; the US states only with --states", async () => {
    const m = await uma.json<{ id: number; name: string; code: string; currency: string; parentId: number | null; isUsState: boolean }[]>(["markets"]);
    expect(m).toContainEqual({ id: 1, name: "New Zealand", code: "NZ", currency: "NZD", parentId: null, isUsState: false });
    expect(m.some((x) => x.isUsState)).toBe(false);
    const all = await uma.json<{ id: number; isUsState: boolean }[]>(["markets", "--states"]);
    const states = all.filter((x) => x.isUsState);
    expect(states.length, "SPEC: about 42 US state markets, ids 56 to 104").toBe(42);
    expect(states.every((x) => x.id >= 56 && x.id <= 104)).toBe(true);
    const text = await uma.run(["markets"]);
    expect(text.stdout).toMatch(/\n\s+1 {2}NZ\s+New Zealand\s+NZD\n/);
    expect(text.stderr).toBe("42 US state markets not shown (--states)\n");
  });
  test("targets --market: the market's own options and those of every market", async () => {
    const nz = await uma.json<{ id: number; question: string; label: string; market: string | null }[]>(["targets", "--market", "nz"]);
    expect(nz).toContainEqual(expect.objectContaining({ id: 4200102, question: "Region", label: "Auckland", market: "NZ" }));
    expect(nz).toContainEqual(expect.objectContaining({ id: 4500002, question: "Gender", label: "Female", market: null }));
    expect(nz.every((o) => o.market === null || o.market === "NZ")).toBe(true);
    const au = await uma.json<{ id: number }[]>(["targets", "--market", "Australia"]);
    expect(
      au.some((o) => o.id === 4200102),
      "Auckland is not an Australian option",
    ).toBe(false);
    const bad = await uma.run(["targets", "--market", "Narnia"]);
    expect([bad.code, bad.stderr]).toEqual([1, "ideally: --market: no market 'Narnia' (see `ideally markets`)\n"]);
  });
  test("categories, frameworks and industries", async () => {
    expect(await uma.json<unknown[]>(["categories"])).toContainEqual({ id: 101, name: "Snacks", parentId: 1, industry: "fmcg" });
    const fw = await uma.json<{ id: number; name: string | null; projectType: string }[]>(["frameworks"]);
    expect(fw).toContainEqual(expect.objectContaining({ id: 1000, name: "idea-default", projectType: "Idea" }));
    expect(fw).toContainEqual(expect.objectContaining({ id: 3000, name: "ad-hoc", projectType: "Question" }));
    // SPEC 1's industry options, in its order.
    const spec = ["telecommunications", "energy", "broadcast", "qsr", "agency", "financial", "government", "other", "retail", "insurance", "fmcg", "tech", "health", "hospitality"];
    expect((await uma.json<{ code: string }[]>(["industries"])).map((i) => i.code)).toEqual(spec);
  });
  test("a project file takes the names the lookups print", async () => {
    const file = join(dir, "names.yaml");
    writeFileSync(
      file,
      "name: Names\ntype: Question\nframework: Ad hoc\nregions: [australia]\ncategory: Dairy\nproductType: Quick service restaurants\ntargets:\n  - option: 'Gender: Male'\nquestions:\n  - text: Why?\n    type: text\n",
    );
    const v = await uma.json<{ project: Record<string, unknown>; targets: unknown[] }>(["projects", "validate", file]);
    expect(v.project).toMatchObject({ frameworkId: 3000, regionIds: [2], categoryId: 102, productType: "qsr" });
    expect(v.targets).toEqual([{ systemQuestionOptionId: 4500001, regionId: null }]);
    writeFileSync(file, "name: Names\ntype: Idea\nframework: ad-hoc\nregions: [NZ]\n");
    const wrong = await uma.run(["projects", "validate", file]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `ideally: ${file}:3:12: framework: framework 3000 (Ad hoc) is not for Idea projects; use one of idea-default (1000), execution-ab (1003), price-sensitivity (1010), market-reach (1020)\n`,
    );
  });
});

describe("--version and auth status", () => {
  test("version: the CLI's version and commit, the contract's and the API's version; --version without the API", async () => {
    const contract = JSON.parse(readFileSync(resolve(import.meta.dir, "../../contracts/openapi.json"), "utf8")).info.version;
    const served = ((await (await fetch(`${server.base}/openapi.json`)).json()) as { info: { version: string } }).info.version;
    const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: resolve(import.meta.dir, "../..") })
      .stdout.toString()
      .trim();
    const v = await uma.json<{ cli: string; commit: string; contract: string; apiVersion: string; api: string }>(["version"]);
    expect(v.cli).toMatch(/^\d+\.\d+\.\d+$/);
    expect(v.commit).toBe(head);
    expect(v.contract).toBe(contract);
    expect(v.api).toBe(server.base);
    expect(v.apiVersion).toBe(served);
    // --version is what the CLI knows, with no network (tests/cli/network.test.ts: with the API hung).
    expect(await uma.json(["--version"])).toEqual({ cli: v.cli, commit: head, contract });
    const text = await uma.run(["--version"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`ideally ${v.cli} (${head})\ncontract  ${contract}\n`);
    const down = await uma.run(["version", "--api", "http://127.0.0.1:9"]);
    expect(down.code, "the CLI's version even with the API down").toBe(0);
    expect(down.stdout).toContain("api version  unknown (cannot reach the API at http://127.0.0.1:9: the connection was refused");
  });
  test("auth status: API, account, client, expiry, config path; exit 3 signed out", async () => {
    await uma.json(["clients", "use", String(T)]);
    const s = await uma.json<{ api: string; email: string; clientId: number; clientName: string; accessTokenExpiresAt: string; server: string; configPath: string; refreshable: boolean }>([
      "auth",
      "status",
    ]);
    const session = uma.config().session as { accessToken: string };
    const exp = JSON.parse(Buffer.from(session.accessToken.split(".")[1], "base64url").toString()).exp as number;
    expect(s).toMatchObject({ api: server.base, email: "user@acme.test", clientId: T, clientName: "Acme Team A", server: "valid", configPath: uma.configFile, refreshable: true });
    expect(Date.parse(s.accessTokenExpiresAt)).toBe(exp * 1000);
    const text = await uma.run(["auth", "status"]);
    expect(text.stdout).toContain(`config        ${uma.configFile}\n`);
    const out = cliHarness(server.base);
    const r = await out.run(["auth", "status"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`ideally: not signed in to ${server.base}; run \`ideally login\` (config: ${out.configFile})\n`);
    out.dispose();
  });
  test("a damaged config file is reported once, with its path, and treated as signed out", async () => {
    const h = cliHarness(server.base);
    mkdirSync(join(h.home, "ideally"), { recursive: true });
    writeFileSync(h.configFile, '{"api": "http://example.invalid", "session": {');
    const r = await h.run(["whoami"]);
    expect(r.code).toBe(3);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toStartWith(`ideally: warning: ignoring the damaged config file ${h.configFile} (`);
    expect(lines[1]).toBe("ideally: not signed in; run `ideally login`");
    h.dispose();
  });
});

describe("confirmations", () => {
  let id = 0;
  beforeAll(async () => {
    ({ id } = await uma.json<{ id: number }>(["projects", "create", "--from", FILE]));
  });
  const status = async () => (await api<{ statusCode: number }>(uma, `/api/v1/Projects(${id})?$select=statusCode`)).statusCode;

  test("without a terminal and without --yes: refused, exit 1, nothing done, nothing on stdout", async () => {
    const transfers = async () => (await api<{ value: unknown[] }>(ada, "/api/v1/CreditLogs?$filter=type eq 140&$top=1000")).value.length;
    const before = await transfers();
    for (const [h, args, what] of [
      [uma, ["projects", "submit", String(id)], `submit project ${id}`],
      [uma, ["projects", "delete", String(id)], `delete project ${id}`],
      [ada, ["admin", "decline", String(id), "--reason", "No"], `decline project ${id}`],
      [ada, ["--client", "1001", "credits", "transfer", "--from", "1003", "--to", "1004", "--amount", "5"], "credits transfer"],
    ] as const) {
      const r = await h.run([...args]);
      expect([r.code, r.stdout, r.stderr]).toEqual([1, "", `ideally: ${what}: add --yes to confirm (stdin is not a terminal, so there is no one to ask)\n`]);
    }
    expect(await status()).toBe(0);
    expect(await transfers(), "no transfer happened").toBe(before);
  });

  test("on a terminal: submit shows the cost table, then asks; n cancels, y submits", async () => {
    const cost = await api<{ total: number }>(uma, `/api/v1/Projects(${id})/CreditCostNow`);
    const no = await onTerminal(uma, ["projects", "submit", String(id)], "n\r");
    expect(no.out).toContain(`total       ${cost.total} credits`);
    expect(no.out).toContain(`Submit project ${id} 'Confirm me' (Draft) for ${cost.total} credits? [y/N]`);
    expect(no.out.indexOf("total ")).toBeLessThan(no.out.indexOf("[y/N]"));
    expect(no.out).toContain(`ideally: submit project ${id}: cancelled, nothing changed`);
    expect(no.code).toBe(1);
    expect(await status()).toBe(0);
    const yes = await onTerminal(uma, ["projects", "submit", String(id)], "y\r");
    expect(yes.code, yes.out).toBe(0);
    expect(yes.out).toContain("-> 50 Awaiting Approval");
    expect(await status()).toBe(50);
  }, 30_000);

  test("--yes goes ahead; delete asks on a terminal", async () => {
    expect((await ada.json<{ statusCode: number }>(["admin", "decline", String(id), "--reason", "Not yet", "--yes"])).statusCode).toBe(0);
    const no = await onTerminal(uma, ["projects", "delete", String(id)], "\r");
    expect(no.out).toContain(`Delete project ${id} 'Confirm me' (Draft)? (undelete restores it) [y/N]`);
    expect(no.code, "Enter alone is no").toBe(1);
    expect(await status()).toBe(0);
    expect(await uma.json(["projects", "delete", String(id), "--yes"])).toEqual({ id, deleted: true });
  }, 30_000);

  test("a transfer outside the client acted for names --client; a bad --client is a usage error", async () => {
    const r = await ada.run(["credits", "transfer", "--from", "1003", "--to", "1004", "--amount", "5", "--yes"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pass --client with the org or enterprise above both");
    const bad = await ada.run(["--client", "abc", "credits"]);
    expect([bad.code, bad.stderr]).toEqual([1, "ideally: --client: expected a client id, got 'abc'\n"]);
    const signedOut = cliHarness(server.base);
    expect((await signedOut.run(["--client", "abc", "projects", "list"])).code, "usage before sign-in").toBe(1);
    signedOut.dispose();
  });

  test("Ctrl-D at the password prompt ends it", async () => {
    const h = cliHarness(server.base);
    const r = await onTerminal(h, ["login", "--email", "user@acme.test"], "\x04", "Password:");
    expect(r.out).toContain("Password:");
    expect(r.out).toContain("ideally: cancelled (end of input)");
    expect(r.code).toBe(1);
    h.dispose();
  }, 30_000);
});
