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
interface Ref {
  scenarios: {
    name: string;
    groups: { group: string; n: number; nEff: number; share: number; se: number; ci: number[] }[];
    comparisons: { a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; pBonferroni: number }[];
  }[];
}
const ref = JSON.parse(readFileSync(join(DIR, "reference.json"), "utf8")) as Ref;

async function cli(...args: string[]) {
  const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6);

async function check(name: string, file: string, args: string[], adjust: "bh" | "bonferroni" = "bh") {
  // reference.R tests every pair (its split scenario has a group of 21): --min-base 0 tests them all too.
  const r = await cli("analyze", "compare", join(DIR, file), "--value", "value", "--top", "1,2", "--weight", "w", "--adjust", adjust, "--min-base", "0", "--json", ...args);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as {
    groups: { group: string; n: number; nEff: number; share: number; se: number; ci: number[] }[];
    comparisons: { a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; paired: boolean }[];
    method: Record<string, unknown>;
  };
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
    const r = await cli(
      "analyze",
      "compare",
      join(DIR, "sequential.csv"),
      "--value",
      "value",
      "--top",
      "1,2",
      "--group",
      "option",
      "--respondent",
      "respondent",
      "--strata",
      "market",
      "--weight",
      "w",
    );
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
    for (const bad of [
      ["--adjust", "holm"],
      ["--confidence", "80"],
    ]) {
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

// ---- issue 37: clusters, design effects, the minimum base, values on the scale ----

interface ClRef {
  minBase: number;
  lonelyDefault: string;
  scenarios: {
    name: string;
    groups: { group: string; n: number; clusters: number; nEff: number; share: number; se: number; deff: number; ci: number[]; lowBase: boolean }[];
    comparisons: { a: string; b: string; diff: number; se: number; tested: boolean; p: number | null; pAdjusted: number | null; pBonferroni: number | null }[];
  }[];
}
const clRef = JSON.parse(readFileSync(join(DIR, "clustered-reference.json"), "utf8")) as ClRef;
interface Out {
  groups: { group: string; n: number; clusters: number; nEff: number; share: number; se: number; deff: number | null; ci: number[]; smallBase: boolean }[];
  comparisons: { a: string; b: string; diff: number; se: number; z: number | null; p: number | null; pAdjusted: number | null; significant: boolean; tested: boolean }[];
  method: Record<string, unknown>;
}

async function checkClustered(name: string, file: string, args: string[], adjust: "bh" | "bonferroni" = "bh") {
  const r = await cli("analyze", "compare", join(DIR, file), "--value", "value", "--top", "1,2", "--group", "option", "--weight", "w", "--adjust", adjust, "--json", ...args);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as Out;
  const s = clRef.scenarios.find((x) => x.name === name)!;
  expect(out.groups.map((g) => g.group)).toEqual(s.groups.map((g) => g.group));
  s.groups.forEach((e, i) => {
    const g = out.groups[i]!;
    expect([g.n, g.clusters, g.smallBase]).toEqual([e.n, e.clusters, e.lowBase]);
    close(g.nEff, e.nEff);
    close(g.share, e.share);
    close(g.se, e.se);
    close(g.deff!, e.deff);
    close(g.ci[0]!, e.ci[0]!);
    close(g.ci[1]!, e.ci[1]!);
  });
  expect(out.comparisons.map((c) => [c.a, c.b, c.tested])).toEqual(s.comparisons.map((c) => [c.a, c.b, c.tested]));
  s.comparisons.forEach((e, i) => {
    const c = out.comparisons[i]!;
    close(c.diff, e.diff);
    close(c.se, e.se);
    if (!e.tested) {
      // Under the minimum base: no test, no star.
      expect([c.z, c.p, c.pAdjusted, c.significant]).toEqual([null, null, null, false]);
      return;
    }
    close(c.p!, e.p!);
    close(c.pAdjusted!, adjust === "bh" ? e.pAdjusted! : e.pBonferroni!);
  });
  return { out, stderr: r.stderr };
}

describe("analyze compare --cluster reproduces R survey on clustered data (clustered.R)", () => {
  test("households nested in sites: svydesign(ids=~household, strata=~site, nest=TRUE, weights=~w)", async () => {
    const { out, stderr } = await checkClustered("clustered", "clustered.csv", ["--cluster", "household", "--strata", "site", "--respondent", "respondent"]);
    expect(stderr).toBe("");
    expect(out.method).toMatchObject({ clusters: true, strata: true, paired: true, minBase: 30, tests: 3 });
  });
  test("Bonferroni over the tested pairs", async () => {
    await checkClustered("clustered", "clustered.csv", ["--cluster", "household", "--strata", "site", "--respondent", "respondent"], "bonferroni");
  });
  test("cluster ids unique across sites give the same design", async () => {
    await checkClustered("clustered", "clustered.csv", ["--cluster", "hhid", "--strata", "site", "--respondent", "respondent"]);
  });
  test("clusters without strata", async () => {
    await checkClustered("clustered-unstratified", "clustered.csv", ["--cluster", "hhid", "--respondent", "respondent"]);
  });
  test("without --cluster the respondent is the cluster; the design effects are R's too", async () => {
    const { out } = await checkClustered("respondents", "clustered.csv", ["--strata", "site", "--respondent", "respondent"]);
    expect(out.method.clusters).toBe(false);
    // What ignoring the households costs (R's own figures): A's SE is over 20% too small.
    const cl = clRef.scenarios.find((x) => x.name === "clustered")!.groups[0]!;
    expect(cl.se / out.groups[0]!.se).toBeGreaterThan(1.2);
  });
  test("a stratum of one cluster: warned, and it adds no variance (survey.lonely.psu 'certainty')", async () => {
    expect(clRef.lonelyDefault).toBe("Stratum (S6) has only one PSU at stage 1");
    const { stderr } = await checkClustered("lonely-certainty", "clustered-lonely.csv", ["--cluster", "household", "--strata", "site", "--respondent", "respondent"]);
    expect(stderr).toBe(`warning: stratum S6 has one cluster: it adds no variance (read as sampled with certainty, R's survey.lonely.psu "certainty"; R's default "fail" refuses such a design)\n`);
  });
  test("the table shows the design effect, the clusters and the low base; a low-base pair has no p and no star", async () => {
    const r = await cli(
      "analyze",
      "compare",
      join(DIR, "clustered.csv"),
      "--value",
      "value",
      "--top",
      "1,2",
      "--group",
      "option",
      "--weight",
      "w",
      "--cluster",
      "household",
      "--strata",
      "site",
      "--respondent",
      "respondent",
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.join("\n")).toContain("clusters household in strata site");
    const head = lines.find((l) => /^group\s/.test(l))!;
    expect(head).toMatch(/deff/);
    expect(head).toMatch(/clusters/);
    expect(lines.find((l) => /^D\s/.test(l))).toMatch(/low base$/);
    for (const l of lines.filter((x) => /^[ABC]\s+D\s/.test(x))) {
      expect(l).toMatch(/not tested: low base$/);
      expect(l).not.toContain("*");
    }
    // A-B and A-C are significant (R: adjusted p 0.00027 and 1.3e-8), B-C is not (0.21).
    expect(lines.find((l) => /^A\s+B\s/.test(l))).toMatch(/\*$/);
    expect(lines.find((l) => /^B\s+C\s/.test(l))).not.toContain("*");
  });
});

describe("analyze compare: the minimum base (issue 37)", () => {
  const file = (name: string, text: string) => {
    const p = join(tmp, name);
    writeFileSync(p, text);
    return p;
  };
  /** Unweighted rows: Kish n_eff is the number of rows, exactly. */
  const rows = (group: string, n: number, top: number) => Array.from({ length: n }, (_, i) => `${group},${i < top ? 1 : 4}`).join("\n");
  test("n_eff 30 is tested, 29 is not (default --min-base 30)", async () => {
    // A: 30 of 30 top (100%), B: 10 of 30, C: 29 rows all top.
    const f = file("base.csv", `o,v\n${rows("A", 30, 30)}\n${rows("B", 30, 10)}\n${rows("C", 29, 29)}\n`);
    const r = await cli("analyze", "compare", f, "--value", "v", "--top", "1", "--group", "o", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.groups.map((g) => [g.group, g.nEff, g.smallBase])).toEqual([
      ["A", 30, false],
      ["B", 30, false],
      ["C", 29, true],
    ]);
    expect(out.comparisons.map((c) => [c.a, c.b, c.tested])).toEqual([
      ["A", "B", true],
      ["A", "C", false],
      ["B", "C", false],
    ]);
    expect(out.comparisons[0]!.significant).toBe(true);
    // B-C differ as much as A-B but are not tested: no p, no star.
    expect([out.comparisons[2]!.p, out.comparisons[2]!.significant]).toEqual([null, false]);
    expect(out.method.tests).toBe(1);
    // --min-base 31: A and B are low bases too; 29 tests C.
    const hi = JSON.parse((await cli("analyze", "compare", f, "--value", "v", "--top", "1", "--group", "o", "--min-base", "31", "--json")).stdout) as Out;
    expect(hi.comparisons.every((c) => !c.tested && c.p === null)).toBe(true);
    const lo = JSON.parse((await cli("analyze", "compare", f, "--value", "v", "--top", "1", "--group", "o", "--min-base", "29", "--json")).stdout) as Out;
    expect(lo.comparisons.every((c) => c.tested)).toBe(true);
  });
  test("1 respondent against 3 (the issue's case) is not starred", async () => {
    const f = file("tiny.csv", "o,v\nA,1\nB,4\nB,4\nB,4\n");
    const r = await cli("analyze", "compare", f, "--value", "v", "--top", "1", "--group", "o");
    expect(r.code).toBe(0);
    const pair = r.stdout.split("\n").find((l) => /^A\s+B\s/.test(l))!;
    expect(pair).toMatch(/not tested: low base$/);
    expect(pair).not.toContain("*");
  });
  test("--min-base takes a number >= 0", async () => {
    const f = file("mb.csv", "o,v\nA,1\nB,4\n");
    for (const bad of ["-1", "x", ""]) {
      const r = await cli("analyze", "compare", f, "--value", "v", "--top", "1,2", "--group", "o", "--min-base", bad);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`ideally: --min-base ${bad}: expected a number of effective respondents >= 0\n`);
    }
  });
});

describe("analyze compare refuses what it cannot estimate (issue 37)", () => {
  const file = (name: string, text: string) => {
    const p = join(tmp, name);
    writeFileSync(p, text);
    return p;
  };
  const run = (f: string, ...more: string[]) => cli("analyze", "compare", f, "--value", "v", "--top", "1,2", "--group", "o", "--weight", "w", ...more);
  test("a group whose weights are all 0: exit 1, not NaN%", async () => {
    const f = file("zero.csv", "o,v,w\nA,1,1\nA,3,1\nB,1,0\nB,2,0\n");
    const r = await run(f);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toBe(`ideally: ${f}: group B: every weight is 0, so it has no share\n`);
  });
  test('"five" and "2.5" are not points of the scale; "2.0" is the point 2', async () => {
    const five = file("five.csv", "o,v,w\nA,1,1\nB,five,1\n");
    const r1 = await run(five);
    expect(r1.code).toBe(1);
    expect(r1.stderr).toBe(`ideally: ${five}: line 3, v: "five" is not a number on the scale\n`);
    const half = file("half.csv", "o,v,w\nA,1,1\nB,2.5,1\n");
    const r2 = await run(half);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toBe(`ideally: ${half}: line 3, v: "2.5" is not a point of the scale (whole numbers)\n`);
    // 2.0 is 2, top box: A 2 of 2, B 1 of 2 (by hand: 100% and 50%).
    const two = file("two0.csv", "o,v,w\nA,1,1\nA,2.0,1\nB,4.0,1\nB,2,1\n");
    const r3 = await run(two, "--json");
    expect(r3.code).toBe(0);
    expect((JSON.parse(r3.stdout) as Out).groups.map((g) => g.share)).toEqual([1, 0.5]);
  });
  test("--scale LO-HI: a value outside it is refused; a --top point nobody chose is allowed inside it", async () => {
    const f = file("scale.csv", "o,v,w\nA,1,1\nA,3,1\nB,4,1\nB,2,1\n");
    const out = await run(f, "--scale", "1-3");
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`ideally: ${f}: line 4, v: "4" is outside the scale 1-3\n`);
    expect((await run(f, "--top", "1,5", "--scale", "1-4")).stderr).toBe("ideally: --top 5: not a point of the scale 1-4\n");
    expect((await run(f, "--top", "1,5", "--scale", "1-5")).code).toBe(0);
  });
  test("a --top value that no row has: exit 1 naming the values seen", async () => {
    const f = file("top.csv", "o,v,w\nA,1,1\nA,3,1\nB,4,1\nB,2,1\n");
    const r = await cli("analyze", "compare", f, "--value", "v", "--top", "5", "--group", "o");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`ideally: ${f}: --top 5: no row has the value 5 (values seen: 1, 2, 3, 4); with --scale a point nobody chose is allowed\n`);
    const word = await cli("analyze", "compare", f, "--value", "v", "--top", "top", "--group", "o");
    expect(word.code).toBe(1);
    expect(word.stderr).toBe("ideally: --top top: the top-box values are whole numbers of the scale, e.g. --top 1,2\n");
  });
  test("a respondent in two clusters: exit 1", async () => {
    const f = file("twocl.csv", "r,h,o,v,w\n1,a,A,1,1\n1,b,B,2,1\n");
    const r = await run(f, "--respondent", "r", "--cluster", "h");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`ideally: ${f}: line 3: respondent 1 is in another cluster than on line 2\n`);
  });
  test("a stratum of one respondent (no --cluster) is warned about too", async () => {
    const f = file("lonely.csv", "o,v,w,s\nA,1,1,x\nA,3,1,x\nB,4,1,x\nB,2,1,y\n");
    const r = await run(f, "--strata", "s", "--min-base", "0");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: stratum y has one respondent: it adds no variance`);
  });
});
