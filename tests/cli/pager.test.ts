// Issue 38: a pager on a terminal for the listing and results commands (record 0133), as git and gh
// have: IDEALLY_PAGER, else PAGER, else less; empty or `cat` is none, and so are --no-pager and a
// stdout that is not a terminal; less gets LESS=FRX when LESS is unset. The pagers here are shell
// scripts that record what they read, their LESS and whether they ran at all; the CLI runs on a
// pseudo-terminal (util-linux `script`). What a pager gets is compared with the same command's
// piped stdout (--wide on both, so the table is not fitted to a width on one side only).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, shellQuote, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-pager-"));
/** A folder put first on PATH, holding a `less` and a `cat` that record that they ran. */
const bin = join(dir, "bin");
let runs = 0;

/**
 * A recording pager: writes what it reads to OUT, its LESS to OUT.less, and whether its stdout is a
 * terminal to OUT.tty, then says "pager done" on stderr (the CLI's). Its own cat is the system's
 * (`command -p`), not the recording one on PATH.
 */
const RECORDER = `#!/bin/sh
out="$1"
printf '%s' "\${LESS-unset}" > "$out.less"
[ -t 1 ] && echo yes > "$out.tty"
command -p cat > "$out"
echo "pager done" >&2
`;

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["clients", "use", "1003"]);
  mkdirSync(bin);
  writeFileSync(join(dir, "recorder.sh"), RECORDER);
  // `less` and `cat` on PATH that record into bin/less.out and bin/cat.out, then pass the text on.
  for (const name of ["less", "cat"]) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec sh ${shellQuote(join(dir, "recorder.sh"))} ${shellQuote(join(dir, `${name}.out`))}\n`);
    chmodSync(join(bin, name), 0o755);
  }
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

/** A fresh recording pager command and where it records. */
function recorder(): { cmd: string; out: string } {
  const out = join(dir, `pager-${++runs}.out`);
  return { cmd: `sh ${shellQuote(join(dir, "recorder.sh"))} ${shellQuote(out)}`, out };
}

/** The environment of a run: no pager variables unless given, the recording less and cat first on PATH. */
const env = (vars: Record<string, string | undefined>) => ({ IDEALLY_PAGER: undefined, PAGER: undefined, LESS: undefined, PATH: `${bin}:${process.env.PATH}`, ...vars });

const cleanRecords = () => {
  for (const name of ["less", "cat"]) for (const ext of ["", ".less", ".tty"]) rmSync(join(dir, `${name}.out${ext}`), { force: true });
};

test("on a terminal a listing goes through IDEALLY_PAGER: all of it, nothing on the screen, LESS=FRX", async () => {
  const piped = await uma.run(["targets", "--wide"]);
  expect(piped.code).toBe(0);
  expect(piped.stdout.split("\n").length, "a listing longer than the terminal").toBeGreaterThan(24);
  const p = recorder();
  const r = await uma.tty(["targets", "--wide"], { env: env({ IDEALLY_PAGER: p.cmd }) });
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(p.out, "utf8")).toBe(piped.stdout);
  expect(r.screen, "the rows went to the pager only").toBe("");
  expect(readFileSync(`${p.out}.less`, "utf8")).toBe("FRX");
  expect(existsSync(`${p.out}.tty`), "the pager's own output is the terminal").toBe(true);
  expect(r.stderr).toBe(`pager done\n${piped.stderr}`);
});

test("a LESS of the person's own is kept; IDEALLY_PAGER wins over PAGER; PAGER alone is used", async () => {
  const [a, b] = [recorder(), recorder()];
  const both = await uma.tty(["categories", "--wide"], { env: env({ IDEALLY_PAGER: a.cmd, PAGER: b.cmd, LESS: "-S" }) });
  expect(both.code, both.stderr).toBe(0);
  expect(readFileSync(`${a.out}.less`, "utf8")).toBe("-S");
  expect(existsSync(b.out), "PAGER is not run when IDEALLY_PAGER is set").toBe(false);
  const c = recorder();
  const alone = await uma.tty(["categories", "--wide"], { env: env({ PAGER: c.cmd }) });
  expect(alone.code).toBe(0);
  expect(readFileSync(c.out, "utf8")).toBe(readFileSync(a.out, "utf8"));
});

test("neither set: less, found on PATH, with LESS=FRX", async () => {
  cleanRecords();
  const r = await uma.tty(["industries", "--wide"], { env: env({}) });
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(join(dir, "less.out"), "utf8")).toBe((await uma.run(["industries", "--wide"])).stdout);
  expect(readFileSync(join(dir, "less.out.less"), "utf8")).toBe("FRX");
});

test("no pager: --no-pager, a pipe, PAGER or IDEALLY_PAGER empty or cat; the rows reach stdout themselves", async () => {
  cleanRecords();
  const piped = (await uma.run(["industries", "--wide"])).stdout;
  const named = [recorder(), recorder(), recorder()];
  const cases: [string, string[], Record<string, string | undefined>][] = [
    ["--no-pager", ["industries", "--wide", "--no-pager"], { IDEALLY_PAGER: named[0]!.cmd }],
    ["--no-pager before the command", ["--no-pager", "industries", "--wide"], {}],
    ["PAGER=", ["industries", "--wide"], { PAGER: "" }],
    ["PAGER=cat", ["industries", "--wide"], { PAGER: "cat" }],
    ["IDEALLY_PAGER=cat", ["industries", "--wide"], { IDEALLY_PAGER: "cat", PAGER: named[1]!.cmd }],
    ["IDEALLY_PAGER=", ["industries", "--wide"], { IDEALLY_PAGER: "", PAGER: named[2]!.cmd }],
  ];
  for (const [why, args, vars] of cases) {
    const r = await uma.tty(args, { env: env(vars) });
    expect([r.code, r.screen], why).toEqual([0, piped]);
  }
  // Nothing was started: neither the pagers named nor the `cat` and `less` on PATH.
  for (const p of named) expect(existsSync(p.out), p.cmd).toBe(false);
  expect(existsSync(join(dir, "cat.out")), "`cat` means no pager, not cat").toBe(false);
  expect(existsSync(join(dir, "less.out"))).toBe(false);
  // A pipe: no pager even when one is named.
  const p = recorder();
  const pipe = await uma.run(["industries", "--wide"], { env: { IDEALLY_PAGER: p.cmd } });
  expect(pipe.stdout).toBe(piped);
  expect(existsSync(p.out)).toBe(false);
});

test("results and a paged list go through it; a usage error opens none", async () => {
  const p = recorder();
  const r = await uma.tty(["results", "1001", "--wide"], { env: env({ IDEALLY_PAGER: p.cmd }) });
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(p.out, "utf8")).toBe((await uma.run(["results", "1001", "--wide"])).stdout);
  const q = recorder();
  const list = await uma.tty(["p", "ls", "--limit", "1", "--wide"], { env: env({ IDEALLY_PAGER: q.cmd }) });
  expect(list.code).toBe(0);
  expect(readFileSync(q.out, "utf8").split("\n").length, "header, rule, one row").toBe(4);
  // The paging hint, written after the rows, was held until the pager ended: below the text, not across it.
  expect(list.stderr).toMatch(/^pager done\nshowing 1-1 of \d+; --page 2 for more, --all for all\n$/);
  const bad = recorder();
  const usage = await uma.tty(["projects", "list", "--limit", "0"], { env: env({ IDEALLY_PAGER: bad.cmd }) });
  expect([usage.code, usage.stderr]).toEqual([1, "ideally: --limit: expected a whole number from 1 to 1000, got '0'\n"]);
  expect(existsSync(bad.out)).toBe(false);
});

test("a pager that stops reading early (q in less) ends the command quietly, exit 0", async () => {
  const out = join(dir, "head.out");
  const r = await uma.tty(["targets", "--wide"], { env: env({ IDEALLY_PAGER: `head -n 2 > ${shellQuote(out)}` }) });
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(out, "utf8").split("\n")).toHaveLength(3);
  expect(r.stderr).not.toContain("    at ");
  expect(r.stderr).not.toContain("EPIPE");
});
