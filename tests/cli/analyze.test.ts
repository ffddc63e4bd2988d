// `ideally analyze psm|turf|rake` run as a subprocess on the reference data, checked against a
// published analysis of the same file (PSM) or values computed here independently of the
// analytics library the CLI calls: TURF by brute force over every set, raking by the margins it
// must hit and Kish's n_eff of the weights it answers.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";

const REF = new URL("../fixtures/reference-data", import.meta.url).pathname;
const MAIN = join(import.meta.dir, "../../cli/src/main.ts");
const tmp = mkdtempSync(join(tmpdir(), "ideally-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

function tmpFile(name: string, content: string | Uint8Array) {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

const PSM = `${REF}/psm_smartphone_1000.csv`;
const PRICES = ["--too-cheap", "1", "--cheap", "2", "--expensive", "3", "--too-expensive", "4"];
const TURF = `${REF}/turf_ex_data.csv`;
const ITEMS = Array.from({ length: 10 }, (_, i) => `item_${i + 1}`);
const ANES = `${REF}/anes24.csv`;
const SEX = "sex=Female:0.51,Male:0.49";
const RACE = "race=White:0.62,Black:0.12,Hispanic:0.17,Asian:0.06,Other:0.03";

describe("analyze psm", () => {
  // Published: The Rational Designer, chapter 5 (tmk1221/The-Rational-Designer, 05-PSM.md), runs
  // R's pricesensitivitymeter::psm_analysis(validate = TRUE, pi_cheap, pi_expensive) on this file:
  // total 1000, 9 invalid, 991 analysed; price range 40 to 98, IDP 67, OPP 70; NMS optimum for
  // trial 61 and for revenue 76, with the default calibration 0.7/0.5/0.3/0.1/0.
  // pricesensitivitymeter (interpolate = FALSE) answers a price of the data's own grid (steps of 1
  // here); we interpolate the crossing between grid prices, so the four points agree within one
  // step. The NMS optima are grid prices in both and must agree exactly.
  const PUBLISHED = { n: 991, invalid: 9, pmc: 40, pme: 98, ipp: 67, opp: 70, trial: 61, revenue: 76 };

  test("Van Westendorp + NMS on the smartphone data (windows-1252) agrees with the published analysis", async () => {
    const r = await cli("analyze", "psm", PSM, ...PRICES, "--pi-cheap", "5", "--pi-expensive", "6", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(["invalid", "ipp", "n", "opp", "pmc", "pme", "revenueOptimal", "trialOptimal"]);
    expect(out.n).toBe(PUBLISHED.n);
    expect(out.invalid).toBe(PUBLISHED.invalid);
    for (const k of ["pmc", "pme", "ipp", "opp"] as const) {
      expect(Math.abs(out[k] - PUBLISHED[k]), `${k} ${out[k]} within one price step of ${PUBLISHED[k]}`).toBeLessThanOrEqual(1);
    }
    // The published order of the points: PMC < IDP < OPP < PME here.
    expect(out.pmc).toBeLessThan(out.ipp);
    expect(out.ipp).toBeLessThan(out.opp);
    expect(out.opp).toBeLessThan(out.pme);
    expect(out.trialOptimal.price).toBe(PUBLISHED.trial);
    expect(out.revenueOptimal.price).toBe(PUBLISHED.revenue);
    // Revenue is price times trial (Newton, Miller and Smith 1993).
    for (const o of [out.trialOptimal, out.revenueOptimal]) expect(o.revenue).toBeCloseTo(o.price * o.trial, 9);
  });

  test("without intents there is no NMS part; a custom --pi-scale is the calibration", async () => {
    const plain = JSON.parse((await cli("analyze", "psm", PSM, ...PRICES, "--json")).stdout);
    expect(Object.keys(plain).sort()).toEqual(["invalid", "ipp", "n", "opp", "pmc", "pme"]);
    const scale = (k: number) => `Very likely=${0.7 * k},Likely=${0.5 * k},Neither likely nor unlikely=${0.3 * k},Unlikely=${0.1 * k},Very unlikely=0`;
    const run = async (k: number) => {
      const r = await cli("analyze", "psm", PSM, ...PRICES, "--pi-cheap", "5", "--pi-expensive", "6", "--pi-scale", scale(k), "--json");
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout);
    };
    const [full, half] = await Promise.all([run(1), run(0.5)]);
    // The default calibration written out gives the published optima.
    expect(full.trialOptimal.price).toBe(PUBLISHED.trial);
    expect(full.revenueOptimal.price).toBe(PUBLISHED.revenue);
    // Halving every probability halves trial and revenue at every price, so the optima stay where they are.
    expect(half.trialOptimal.price).toBe(PUBLISHED.trial);
    expect(half.revenueOptimal.price).toBe(PUBLISHED.revenue);
    expect(half.trialOptimal.trial).toBeCloseTo(full.trialOptimal.trial / 2, 12);
    expect(half.revenueOptimal.revenue).toBeCloseTo(full.revenueOptimal.revenue / 2, 9);
  });

  test("readable summary without --json, no colour codes under NO_COLOR", async () => {
    const r = await cli("analyze", "psm", PSM, ...PRICES);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("OPP  optimal price");
    expect(r.stdout).not.toContain("\x1b[");
  });
});

describe("analyze turf", () => {
  /** Every k-item set, reach and frequency counted here by brute force (turfR's definitions). */
  function bruteForce(rows: Record<string, string>[], items: string[], k: number, weight?: string) {
    const w = rows.map((x) => (weight ? Number(x[weight]) : 1));
    const total = w.reduce((a, b) => a + b, 0);
    const sets: { items: string[]; reach: number; frequency: number }[] = [];
    const pick = (from: number, chosen: string[]) => {
      if (chosen.length === k) {
        let reach = 0;
        let freq = 0;
        rows.forEach((x, i) => {
          const hits = chosen.filter((it) => Number(x[it]) === 1).length;
          if (hits > 0) reach += w[i]!;
          freq += w[i]! * hits;
        });
        sets.push({ items: chosen, reach: reach / total, frequency: freq / total });
        return;
      }
      for (let j = from; j < items.length; j++) pick(j + 1, [...chosen, items[j]!]);
    };
    pick(0, []);
    return sets;
  }

  test("weighted TURF, k = 3: the ten best sets by reach, checked by brute force over all 120 sets", async () => {
    const r = await cli("analyze", "turf", TURF, "--weight", "wgt", "--items", ITEMS.join(","), "--k", "3", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { rows } = parseCsvObjects(await Bun.file(TURF).text());
    const all = bruteForce(rows, ITEMS, 3, "wgt");
    expect(all).toHaveLength(120);
    const out = JSON.parse(r.stdout) as { results: { items: string[]; reach: number; frequency: number }[] };
    expect(out.results).toHaveLength(10);
    const key = (s: string[]) => [...s].sort().join(",");
    for (const got of out.results) {
      const same = all.find((s) => key(s.items) === key(got.items))!;
      expect(got.reach).toBeCloseTo(same.reach, 12);
      expect(got.frequency).toBeCloseTo(same.frequency, 12);
    }
    // Best first: the reaches are the ten highest of all 120 sets.
    const best = all
      .map((s) => s.reach)
      .sort((a, b) => b - a)
      .slice(0, 10);
    out.results.forEach((g, i) => {
      expect(g.reach).toBeCloseTo(best[i]!, 12);
    });
  });

  test("--top and --depth are passed on: reach at depth 2 counts respondents accepting two or more", async () => {
    const r = await cli("analyze", "turf", TURF, "--items", ITEMS.slice(0, 6).join(","), "--k", "3", "--depth", "2", "--top", "2", "--json");
    expect(r.code).toBe(0);
    const { rows } = parseCsvObjects(await Bun.file(TURF).text());
    const out = JSON.parse(r.stdout).results as { items: string[]; reach: number }[];
    expect(out).toHaveLength(2);
    const depth2 = (set: string[]) => rows.filter((x) => set.filter((it) => Number(x[it]) === 1).length >= 2).length / rows.length;
    for (const g of out) expect(g.reach).toBeCloseTo(depth2(g.items), 12);
    expect(out[0]!.reach).toBeGreaterThanOrEqual(out[1]!.reach);
  });
});

describe("analyze rake", () => {
  test("raking anes24 on sex and race (blanks left out of the margin): the weighted margins hit the targets", async () => {
    const r = await cli("analyze", "rake", ANES, "--target", SEX, "--target", RACE, "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { rows } = parseCsvObjects(await Bun.file(ANES).text());
    const out = JSON.parse(r.stdout) as { converged: boolean; maxError: number; iterations: number; deff: number; nEff: number; min: number; max: number; weights: number[] };
    const w = out.weights;
    expect(w).toHaveLength(966);
    expect(w.reduce((a, b) => a + b, 0) / 966).toBeCloseTo(1, 9);
    // Deming and Stephan (1940): at convergence each variable's weighted shares (among the rows
    // that answered it) are the targets.
    const targets: Record<string, Record<string, number>> = {
      sex: { Female: 0.51, Male: 0.49 },
      race: { White: 0.62, Black: 0.12, Hispanic: 0.17, Asian: 0.06, Other: 0.03 },
    };
    for (const [v, shares] of Object.entries(targets)) {
      const answered = rows.map((x, i) => [x[v], w[i]!] as const).filter(([a]) => a !== "");
      const total = answered.reduce((a, [, x]) => a + x, 0);
      for (const [level, share] of Object.entries(shares)) {
        const got = answered.filter(([a]) => a === level).reduce((a, [, x]) => a + x, 0) / total;
        expect(got, `${v}=${level}`).toBeCloseTo(share, 6);
      }
    }
    // Kish (1965): n_eff = (Σw)² / Σw², deff = n / n_eff; min and max as the weights say.
    const sum = w.reduce((a, b) => a + b, 0);
    const sum2 = w.reduce((a, b) => a + b * b, 0);
    expect(out.nEff).toBeCloseTo((sum * sum) / sum2, 6);
    expect(out.deff).toBeCloseTo(966 / ((sum * sum) / sum2), 9);
    expect(out.min).toBe(Math.min(...w));
    expect(out.max).toBe(Math.max(...w));
    expect(out.iterations).toBeGreaterThan(0);
    // The JSON says whether it converged (finding 9): at convergence every margin is within 1e-6 above.
    expect(out.converged).toBe(true);
    expect(out.maxError).toBeLessThanOrEqual(1e-6);
  });

  test("--cap trims the weights", async () => {
    const r = await cli("analyze", "rake", ANES, "--target", SEX, "--target", RACE, "--cap", "1.5", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.max).toBeLessThanOrEqual(1.5 + 1e-9);
  });
});

describe("errors", () => {
  const cases: [string, string[], number, RegExp][] = [
    ["missing file", ["psm", join(tmp, "nope.csv"), ...PRICES], 1, /cannot read .*nope\.csv: no such file/],
    ["a directory", ["psm", tmp, ...PRICES], 1, /cannot read .*: is a directory/],
    ["unknown column", ["psm", PSM, ...PRICES.slice(0, 6), "--too-expensive", "price_te"], 1, /--too-expensive price_te: no such column/],
    ["column number out of range", ["psm", PSM, ...PRICES.slice(0, 6), "--too-expensive", "9"], 1, /column number out of range 1\.\.6/],
    ["label where a price is needed", ["psm", PSM, "--too-cheap", "1", "--cheap", "2", "--expensive", "3", "--too-expensive", "5"], 1, /line 2, .*"Very unlikely" is not a number/],
    ["one intent only", ["psm", PSM, ...PRICES, "--pi-cheap", "5"], 1, /--pi-cheap and --pi-expensive go together/],
    ["missing required option", ["psm", PSM, ...PRICES.slice(0, 6)], 1, /required option '--too-expensive <col>' not specified/],
    ["unknown option", ["psm", PSM, ...PRICES, "--bogus"], 1, /unknown option '--bogus'/],
    ["k larger than the items", ["turf", TURF, "--items", "item_1,item_2", "--k", "3"], 1, /--k 3 is larger than the 2 items given/],
    ["unknown item column", ["turf", TURF, "--items", "item_1,item_99", "--k", "1"], 1, /--items item_99: no such column/],
    ["share not a number", ["rake", ANES, "--target", "sex=Female:half,Male:0.5"], 1, /--target sex: share "half" for Female is not a number/],
    ["shares not summing to 1", ["rake", ANES, "--target", "sex=Female:0.6,Male:0.6"], 1, /--target sex: shares sum to 1\.2, not 1/],
    ["a level without a share", ["rake", ANES, "--target", "sex=Female:1"], 1, /level "Male" is in the data but has no share/],
    ["unknown target variable", ["rake", ANES, "--target", "gender=F:0.5,M:0.5"], 1, /--target gender: no such column/],
  ];
  for (const [name, args, code, message] of cases) {
    test(`${name}: exit ${code}`, async () => {
      const r = await cli("analyze", ...args);
      expect(r.code).toBe(code);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    });
  }

  test("files without rows or with non-numeric prices / items: exit 1 (issue 20), naming the line", async () => {
    const empty = tmpFile("empty.csv", "");
    const headerOnly = tmpFile("header.csv", "tc,c,e,te\n");
    const badPrice = tmpFile("bad.csv", "tc,c,e,te\n1,2,3,4\n1,two,3,4\n");
    const badItem = tmpFile("items.csv", "a,b\n1,0\nyes,1\n");
    const p = ["--too-cheap", "tc", "--cheap", "c", "--expensive", "e", "--too-expensive", "te"];
    const runs = await Promise.all([
      cli("analyze", "psm", empty, ...p),
      cli("analyze", "psm", headerOnly, ...p),
      cli("analyze", "psm", badPrice, ...p),
      cli("analyze", "turf", badItem, "--items", "a,b", "--k", "1"),
    ]);
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1]);
    expect(runs[0].stderr).toMatch(/the file is empty/);
    expect(runs[1].stderr).toMatch(/no data rows after the header/);
    expect(runs[2].stderr).toMatch(/bad\.csv: line 3, c: "two" is not a number/);
    expect(runs[3].stderr).toMatch(/items\.csv: line 3, a: "yes" is not a number/);
  });

  test("UTF-8 files are read as UTF-8; invalid UTF-8 falls back to windows-1252", async () => {
    const utf8 = tmpFile("utf8.csv", "größe,c,e,te\n1,2,3,4\n2,3,4,5\n");
    const cp1252 = tmpFile("cp1252.csv", new Uint8Array([0x67, 0x72, 0xf6, 0xdf, 0x65, ...new TextEncoder().encode(",c,e,te\n1,2,3,4\n")]));
    const rest = ["--cheap", "c", "--expensive", "e", "--too-expensive", "te", "--json"];
    const [a, b] = await Promise.all([cli("analyze", "psm", utf8, "--too-cheap", "größe", ...rest), cli("analyze", "psm", cp1252, "--too-cheap", "größe", ...rest)]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(JSON.parse(a.stdout).n).toBe(2);
    expect(JSON.parse(b.stdout).n).toBe(1);
  });
});

describe("help", () => {
  test("each subcommand has --help with examples, exit 0", async () => {
    for (const sub of ["psm", "turf", "rake"]) {
      const r = await cli("analyze", sub, "--help");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`$ ideally analyze ${sub} `);
    }
  });
});
