// `ideally analyze compare` as a subprocess on the committed datasets of tests/fixtures/stats: its
// JSON must reproduce R survey's values there (reference.json, written by reference.R) to 1e-6.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DIR = join(import.meta.dir, "../fixtures/stats");
const MAIN = join(import.meta.dir, "../../cli/src/main.ts");
const tmp = mkdtempSync(join(tmpdir(), "ideally-compare-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
interface Ref { scenarios: { name: string; groups: { group: string; n: number; nEff: number; share: number; se: number; ci: number[] }[]; comparisons: { a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; pBonferroni: number }[] }[] }
const ref = JSON.parse(readFileSync(join(DIR, "reference.json"), "utf8")) as Ref;

async function cli(...args: string[]) {
  const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6);

async function check(name: string, file: string, args: string[], adjust: "bh" | "bonferroni" = "bh") {
  const r = await cli("analyze", "compare", join(DIR, file), "--value", "value", "--top", "1,2", "--weight", "w", "--adjust", adjust, "--json", ...args);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { groups: { group: string; n: number; nEff: number; share: number; se: number; ci: number[] }[]; comparisons: { a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; paired: boolean }[]; method: Record<string, unknown> };
  const s = ref.scenarios.find((x) => x.name === name)!;
  expect(out.groups.map((g) => g.group)).toEqual(s.groups.map((g) => g.group));
  s.groups.forEach((e, i) => {
    const g = out.groups[i]!;
    expect(g.n).toBe(e.n);
    close(g.nEff, e.nEff);
    close(g.share, e.share);
    close(g.se, e.se);
    close(g.ci[0]!, e.ci[0]!);
    close(g.ci[1]!, e.ci[1]!);
  });
  s.comparisons.forEach((e, i) => {
    const c = out.comparisons[i]!;
    expect([c.a, c.b]).toEqual([e.a, e.b]);
    close(c.diff, e.diff);
    close(c.se, e.se);
    close(c.p, e.p);
    close(c.pAdjusted, adjust === "bh" ? e.pAdjusted : e.pBonferroni);
  });
  return out;
}

describe("analyze compare reproduces R survey", () => {
  test("paired and stratified (sequential monadic), Benjamini-Hochberg", async () => {
    const out = await check("sequential", "sequential.csv", ["--group", "option", "--strata", "market", "--respondent", "respondent"]);
    expect(out.method).toMatchObject({ variance: "taylor-linearisation", strata: true, paired: true, adjust: "bh", confidence: 95 });
    expect(out.comparisons.every((c) => c.paired)).toBe(true);
  });
  test("Bonferroni", async () => {
    await check("sequential", "sequential.csv", ["--group", "option", "--strata", "market", "--respondent", "respondent"], "bonferroni");
  });
  test("without --strata", async () => {
    const out = await check("sequential-unstratified", "sequential.csv", ["--group", "option", "--respondent", "respondent"]);
    expect(out.method.strata).toBe(false);
  });
  test("without --respondent: rows independent", async () => {
    const out = await check("sequential-rows", "sequential.csv", ["--group", "option", "--strata", "market"]);
    expect(out.method.paired).toBe(false);
  });
  test("split cells with a 100% group of 21", async () => {
    const out = await check("split", "split.csv", ["--group", "option", "--strata", "market", "--respondent", "respondent"]);
    const d = out.groups.find((g) => g.group === "D")!;
    expect(d.ci[1]).toBe(1);
    expect(d.ci[0]).toBeLessThan(0.9);
  });
  test("waves by market run", async () => {
    await check("waves", "waves.csv", ["--group", "wave", "--strata", "run", "--respondent", "respondent"]);
  });
  test("the table names the method", async () => {
    const r = await cli("analyze", "compare", join(DIR, "sequential.csv"), "--value", "value", "--top", "1,2", "--group", "option", "--respondent", "respondent", "--strata", "market", "--weight", "w");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Benjamini-Hochberg adjustment");
    expect(r.stdout).toContain("paired by respondent");
  });
});

describe("analyze compare refuses bad input with one line", () => {
  const file = (name: string, text: string) => {
    const p = join(tmp, name);
    writeFileSync(p, text);
    return p;
  };
  test("unknown --adjust and --confidence: exit 1", async () => {
    const f = file("ok.csv", "r,o,v\n1,A,1\n2,B,3\n");
    for (const bad of [["--adjust", "holm"], ["--confidence", "80"]]) {
      const r = await cli("analyze", "compare", f, "--value", "v", "--top", "1,2", "--group", "o", ...bad);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split("\n").length).toBe(1);
    }
  });
  test("a respondent with two weights, a non-number weight, no values: exit 1 (issue 20)", async () => {
    const two = file("two.csv", "r,o,v,w\n1,A,1,1\n1,B,3,2\n");
    const r1 = await cli("analyze", "compare", two, "--value", "v", "--top", "1,2", "--group", "o", "--respondent", "r", "--weight", "w");
    expect(r1.code).toBe(1);
    expect(r1.stderr).toBe(`ideally: ${two}: line 3: respondent 1 has another weight or stratum than on line 2\n`);
    const hex = file("hex.csv", "r,o,v,w\n1,A,1,x\n");
    expect((await cli("analyze", "compare", hex, "--value", "v", "--top", "1,2", "--group", "o", "--weight", "w")).code).toBe(1);
    const none = file("none.csv", "r,o,v\n1,A,\n2,B,\n");
    const r3 = await cli("analyze", "compare", none, "--value", "v", "--top", "1,2", "--group", "o");
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain("no row has a value");
  });
});
