// `ideally analyze psm|turf|rake` run as a subprocess on the reference data; the JSON must equal
// what the analytics functions return for the same input, computed here directly.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCsv, parseCsvObjects } from "../../api/src/analytics/csv.ts";
import { parseIntentLabel, vanWestendorp } from "../../api/src/analytics/psm.ts";
import { rake } from "../../api/src/analytics/rake.ts";
import { turf } from "../../api/src/analytics/turf.ts";

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
  test("Van Westendorp + NMS on the smartphone data (windows-1252) equals vanWestendorp()", async () => {
    const r = await cli("analyze", "psm", PSM, ...PRICES, "--pi-cheap", "5", "--pi-expensive", "6", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [, ...rows] = parseCsv(new TextDecoder("windows-1252").decode(await Bun.file(PSM).arrayBuffer()));
    const res = vanWestendorp(
      rows.map((x) => ({
        tooCheap: Number(x[0]),
        cheap: Number(x[1]),
        expensive: Number(x[2]),
        tooExpensive: Number(x[3]),
        intentCheap: parseIntentLabel(x[4]),
        intentExpensive: parseIntentLabel(x[5]),
      })),
    );
    expect(res.nms).toBeDefined();
    expect(JSON.parse(r.stdout)).toEqual({
      n: res.n,
      invalid: res.invalid,
      pmc: res.pmc,
      pme: res.pme,
      ipp: res.ipp,
      opp: res.opp,
      trialOptimal: res.nms!.trialOptimal,
      revenueOptimal: res.nms!.revenueOptimal,
    });
  });

  test("without intents there is no NMS part; a custom --pi-scale is the calibration", async () => {
    const plain = JSON.parse((await cli("analyze", "psm", PSM, ...PRICES, "--json")).stdout);
    expect(Object.keys(plain).sort()).toEqual(["invalid", "ipp", "n", "opp", "pmc", "pme"]);
    const scale = "Very likely=0.9,Likely=0.6,Neither likely nor unlikely=0.3,Unlikely=0.1,Very unlikely=0";
    const r = await cli("analyze", "psm", PSM, ...PRICES, "--pi-cheap", "5", "--pi-expensive", "6", "--pi-scale", scale, "--json");
    expect(r.code).toBe(0);
    const [, ...rows] = parseCsv(new TextDecoder("windows-1252").decode(await Bun.file(PSM).arrayBuffer()));
    const res = vanWestendorp(
      rows.map((x) => ({
        tooCheap: Number(x[0]),
        cheap: Number(x[1]),
        expensive: Number(x[2]),
        tooExpensive: Number(x[3]),
        intentCheap: parseIntentLabel(x[4]),
        intentExpensive: parseIntentLabel(x[5]),
      })),
      { calibration: [0.9, 0.6, 0.3, 0.1, 0] },
    );
    expect(JSON.parse(r.stdout).revenueOptimal).toEqual(res.nms!.revenueOptimal);
  });

  test("readable summary without --json, no colour codes under NO_COLOR", async () => {
    const r = await cli("analyze", "psm", PSM, ...PRICES);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("OPP  optimal price");
    expect(r.stdout).not.toContain("\x1b[");
  });
});

describe("analyze turf", () => {
  test("weighted TURF, k = 3, equals turf()", async () => {
    const r = await cli("analyze", "turf", TURF, "--weight", "wgt", "--items", ITEMS.join(","), "--k", "3", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { rows } = parseCsvObjects(await Bun.file(TURF).text());
    const res = turf(
      { acceptance: rows.map((x) => ITEMS.map((it) => Number(x[it]))), weights: rows.map((x) => Number(x.wgt)) },
      { k: 3 },
    );
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({ results: res.sets.map((s) => ({ items: s.items.map((j) => ITEMS[j]), reach: s.reach, frequency: s.frequency })) });
    expect(out.results).toHaveLength(10);
  });

  test("--top and --depth are passed on", async () => {
    const r = await cli("analyze", "turf", TURF, "--items", ITEMS.slice(0, 6).join(","), "--k", "3", "--depth", "2", "--top", "2", "--json");
    expect(r.code).toBe(0);
    const { rows } = parseCsvObjects(await Bun.file(TURF).text());
    const res = turf({ acceptance: rows.map((x) => ITEMS.slice(0, 6).map((it) => Number(x[it]))) }, { k: 3, depth: 2, top: 2 });
    expect(JSON.parse(r.stdout).results).toEqual(
      res.sets.map((s) => ({ items: s.items.map((j) => ITEMS[j]), reach: s.reach, frequency: s.frequency })),
    );
  });
});

describe("analyze rake", () => {
  test("raking anes24 on sex and race (blanks left out of the margin) equals rake()", async () => {
    const r = await cli("analyze", "rake", ANES, "--target", SEX, "--target", RACE, "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { rows } = parseCsvObjects(await Bun.file(ANES).text());
    const res = rake(rows, {
      targets: {
        sex: { Female: 0.51, Male: 0.49 },
        race: { White: 0.62, Black: 0.12, Hispanic: 0.17, Asian: 0.06, Other: 0.03 },
      },
    });
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      iterations: res.iterations,
      deff: res.deff,
      nEff: res.nEff,
      min: res.minWeight,
      max: res.maxWeight,
      weights: res.weights,
    });
    expect(out.weights).toHaveLength(966);
    expect(out.weights.reduce((a: number, b: number) => a + b, 0) / 966).toBeCloseTo(1, 9);
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
    ["missing file", ["psm", join(tmp, "nope.csv"), ...PRICES], 2, /cannot read .*nope\.csv: no such file/],
    ["a directory", ["psm", tmp, ...PRICES], 2, /cannot read .*: is a directory/],
    ["unknown column", ["psm", PSM, ...PRICES.slice(0, 6), "--too-expensive", "price_te"], 1, /--too-expensive price_te: no such column/],
    ["column number out of range", ["psm", PSM, ...PRICES.slice(0, 6), "--too-expensive", "9"], 1, /column number out of range 1\.\.6/],
    ["label where a price is needed", ["psm", PSM, "--too-cheap", "1", "--cheap", "2", "--expensive", "3", "--too-expensive", "5"], 2, /row 2, .*"Very unlikely" is not a number/],
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

  test("files without rows or with non-numeric prices / items: exit 2", async () => {
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
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0].stderr).toMatch(/the file is empty/);
    expect(runs[1].stderr).toMatch(/no data rows after the header/);
    expect(runs[2].stderr).toMatch(/row 3, c: "two" is not a number/);
    expect(runs[3].stderr).toMatch(/row 3, a: "yes" is not a number/);
  });

  test("UTF-8 files are read as UTF-8; invalid UTF-8 falls back to windows-1252", async () => {
    const utf8 = tmpFile("utf8.csv", "größe,c,e,te\n1,2,3,4\n2,3,4,5\n");
    const cp1252 = tmpFile("cp1252.csv", new Uint8Array([0x67, 0x72, 0xf6, 0xdf, 0x65, ...new TextEncoder().encode(",c,e,te\n1,2,3,4\n")]));
    const rest = ["--cheap", "c", "--expensive", "e", "--too-expensive", "te", "--json"];
    const [a, b] = await Promise.all([
      cli("analyze", "psm", utf8, "--too-cheap", "größe", ...rest),
      cli("analyze", "psm", cp1252, "--too-cheap", "größe", ...rest),
    ]);
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
