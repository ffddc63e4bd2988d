// `ideally analyze` refuses bad input (finding 9): each case exits non-zero with one line on
// stderr, or warns; the expected outcomes come from the issue's list, not from the code.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAIN = join(import.meta.dir, "../../cli/src/main.ts");
const tmp = mkdtempSync(join(tmpdir(), "ideally-input-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
const file = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const PRICES = ["--too-cheap", "1", "--cheap", "2", "--expensive", "3", "--too-expensive", "4"];
const oneLine = (s: string) => expect(s.trim().split("\n").length).toBe(1);

describe("analyze psm input", () => {
  test("0x10 is not a number (was read as 16)", async () => {
    const r = await cli("analyze", "psm", file("hex.csv", "a,b,c,d\n1,2,3,0x10\n2,3,4,5\n"), ...PRICES, "--json");
    expect(r.code, "issue 20: bad input is exit 1").toBe(1);
    expect(r.stderr).toContain('"0x10" is not a number');
    oneLine(r.stderr);
    // Decimal forms are numbers.
    expect((await cli("analyze", "psm", file("dec.csv", "a,b,c,d\n1,2.5,3e0,+4\n.5,3,4,5\n"), ...PRICES, "--json")).code).toBe(0);
  });
  test("a negative price is refused", async () => {
    const r = await cli("analyze", "psm", file("neg.csv", "a,b,c,d\n-1,2,3,4\n1,2,3,4\n"), ...PRICES, "--json");
    expect(r.code, "issue 20: bad input is exit 1").toBe(1);
    expect(r.stderr).toContain("negative price");
    oneLine(r.stderr);
  });
  test("no consistent respondent: refused, not an empty result with exit 0", async () => {
    const r = await cli("analyze", "psm", file("bad.csv", "a,b,c,d\n4,3,2,1\n5,5,5,5\n"), ...PRICES, "--json");
    expect(r.code, "issue 20: bad input is exit 1").toBe(1);
    expect(r.stderr).toContain("no respondent has consistent prices");
    oneLine(r.stderr);
  });
  test("one respondent, and a high invalid share, are warned about", async () => {
    const one = await cli("analyze", "psm", file("one.csv", "a,b,c,d\n1,2,3,4\n"), ...PRICES, "--json");
    expect(one.code).toBe(0);
    expect(one.stderr).toContain("only 1 respondent");
    // 1 of 2 invalid (50%) is above the 20% the warning allows; 1 of 5 (20%) is not.
    const half = await cli("analyze", "psm", file("half.csv", "a,b,c,d\n1,2,3,4\n4,3,2,1\n"), ...PRICES, "--json");
    expect(half.stderr).toContain("50.0% of respondents are invalid");
    const fifth = await cli("analyze", "psm", file("fifth.csv", "a,b,c,d\n1,2,3,4\n1,2,3,5\n2,3,4,5\n1,3,4,5\n4,3,2,1\n"), ...PRICES, "--json");
    expect(fifth.code).toBe(0);
    expect(fifth.stderr).toBe("");
  });
});

describe("analyze rake --json says whether it converged", () => {
  test("converged and its largest margin error are in the JSON", async () => {
    const r = await cli("analyze", "rake", file("rake.csv", "sex\nF\nM\nM\n"), "--target", "sex=F:0.5,M:0.5", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { converged: boolean; maxError: number; weights: number[] };
    expect(out.converged).toBe(true);
    expect(out.maxError).toBeLessThan(1e-6);
    expect(out.weights.map((w) => +w.toFixed(6))).toEqual([1.5, 0.75, 0.75]);
  });
});

describe("ragged rows (issue 24, 11)", () => {
  test("a row with fewer or more fields than the header is left out, its line named on stderr", async () => {
    // Line 4 is blank (skipped, not ragged); the quoted field on line 5 spans lines 5-6, line 7 is
    // whole, so the short row is on line 8 and the long one on line 9.
    const text = 'a,b,c,d\n1,2,3,4\n2,3,4,5\n\n"1",2,3,"4\nstill d"\n3,4,5,6\n1,2,3\n1,2,3,4,5\n';
    const r = await cli("analyze", "psm", file("ragged.csv", text), ...PRICES, "--json");
    expect(r.code).toBe(1); // line 5's d is not a number: the lines after the multi-line field are counted right
    expect(r.stderr).toBe(
      `warning: ${join(tmp, "ragged.csv")}: 2 rows without the header's 4 fields left out (line 8 has 3, line 9 has 5)\n` +
        `ideally: ${join(tmp, "ragged.csv")}: line 5, d: "4\nstill d" is not a number\n`,
    );
    const clean = "a,b,c,d\n1,2,3,4\n2,3,4,5\n\n3,4,5,6\n1,2,3\n1,2,3,4,5\n";
    const ok = await cli("analyze", "psm", file("ragged2.csv", clean), ...PRICES, "--json");
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).n, "the three whole rows, the ragged two left out").toBe(3);
    expect(ok.stderr).toBe(`warning: ${join(tmp, "ragged2.csv")}: 2 rows without the header's 4 fields left out (line 6 has 3, line 7 has 5)\n`);
  });
  test("more than five are counted; a file of only ragged rows is refused with exit 1", async () => {
    const many = `a,b,c,d\n1,2,3,4\n${"1,2\n".repeat(7)}`;
    const r = await cli("analyze", "psm", file("many.csv", many), ...PRICES, "--json");
    expect(r.stderr).toBe(
      `warning: ${join(tmp, "many.csv")}: 7 rows without the header's 4 fields left out (line 3 has 2, line 4 has 2, line 5 has 2, line 6 has 2, line 7 has 2 and 2 more)\nwarning: only 1 respondent with consistent prices: the curves are a single step\n`,
    );
    const only = await cli("analyze", "turf", file("only.csv", "a,b\n1\n0,1,1\n"), "--items", "a,b", "--k", "1");
    expect([only.code, only.stdout, only.stderr]).toEqual([1, "", `ideally: ${join(tmp, "only.csv")}: 2 rows without the header's 2 fields left out (line 2 has 1, line 3 has 3)\n`]);
  });
});

describe("analyze turf --none (issue 20 finding 8: reach questions have a none answer)", () => {
  // Respondents as [a, b, c, none, weight]; those choosing none accept no item and stay in the base.
  const data = [
    [1, 0, 0, 0, 1],
    [0, 1, 0, 0, 2],
    [0, 0, 0, 1, 1],
    [1, 1, 0, 0, 1],
    [0, 0, 0, 1, 3],
    [0, 0, 1, 0, 1],
  ];
  const text = `a,b,c,none,w\n${data.map((r) => r.join(",")).join("\n")}\n`;
  /** Every pair of the three items by brute force: reach over all respondents' weight (9). */
  const pairs = [
    [0, 1],
    [0, 2],
    [1, 2],
  ].map((s) => {
    const total = data.reduce((x, r) => x + r[4]!, 0);
    const reach = data.reduce((x, r) => x + (s.some((j) => r[j] === 1) ? r[4]! : 0), 0) / total;
    const frequency = data.reduce((x, r) => x + s.filter((j) => r[j] === 1).length * r[4]!, 0) / total;
    return { items: s.map((j) => "abc"[j]!), reach, frequency };
  });
  test("those choosing none are in the base and reached by no set; the JSON gives their share", async () => {
    const f = file("none.csv", text);
    const r = await cli("analyze", "turf", f, "--items", "a,b,c", "--k", "2", "--weight", "w", "--none", "none", "--json");
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const out = JSON.parse(r.stdout) as { results: { items: string[]; reach: number; frequency: number }[]; none: number };
    expect(out.none).toBeCloseTo(4 / 9, 12);
    // {a, b} and {b, c} both reach 4 of 9 (weights 1 + 2 + 1); {a, b} ranks first on frequency 5/9 against 4/9.
    expect(out.results[0]!.items).toEqual(["a", "b"]);
    expect(out.results[0]!.reach).toBeCloseTo(4 / 9, 12);
    for (const got of out.results) {
      const want = pairs.find((p) => p.items.join() === got.items.join())!;
      expect(got.reach).toBeCloseTo(want.reach, 12);
      expect(got.frequency).toBeCloseTo(want.frequency, 12);
    }
    // Without --none the same base and reach (the column is simply not an item), and no share.
    const plain = JSON.parse((await cli("analyze", "turf", f, "--items", "a,b,c", "--k", "2", "--weight", "w", "--json")).stdout);
    expect(plain.none).toBeUndefined();
    expect(plain.results[0].reach).toBeCloseTo(4 / 9, 12);
  });
  test("none is never an item, and excludes the items on a row", async () => {
    const f = file("none2.csv", text);
    const asItem = await cli("analyze", "turf", f, "--items", "a,b,none", "--k", "2", "--none", "none");
    expect(asItem.code).toBe(1);
    expect(asItem.stderr).toContain('--none none is also in --items: a "none of these" answer is never an item');
    oneLine(asItem.stderr);
    const both = await cli("analyze", "turf", file("none3.csv", "a,b,none\n1,0,0\n0,1,1\n"), "--items", "a,b", "--k", "1", "--none", "none");
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('line 3: "none of these" (none) together with an item');
    oneLine(both.stderr);
  });
});

describe("analyze turf input", () => {
  test("items are decimal numbers: 0x1 is refused like psm's 0x10 (issue 20 finding 9), 1.0 and +0 are read", async () => {
    const hex = await cli("analyze", "turf", file("turfhex.csv", "a,b\n1,0\n0x1,1\n"), "--items", "a,b", "--k", "1");
    expect(hex.code).toBe(1);
    expect(hex.stderr).toContain('line 3, a: "0x1" is not a number (0/1)');
    oneLine(hex.stderr);
    const dec = await cli("analyze", "turf", file("turfdec.csv", "a,b\n1.0,+0\n0,1\n"), "--items", "a,b", "--k", "1", "--json");
    expect(dec.code).toBe(0);
    expect(JSON.parse(dec.stdout).results.map((r: { reach: number }) => r.reach)).toEqual([0.5, 0.5]);
  });
});

describe("analyze turf: the base and the codes (issue 37)", () => {
  test("a row of blanks is a respondent who accepts nothing: in the base, reached by no set", async () => {
    // Three respondents: a, b, and one with both cells blank. {a, b} reaches 2 of 3 (by hand: 2/3),
    // each single item 1 of 3. Before, the blank row was dropped and {a, b} reached 1.0.
    const r = await cli("analyze", "turf", file("blankrow.csv", "a,b\n1,0\n0,1\n,\n"), "--items", "a,b", "--k", "2", "--json");
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const out = JSON.parse(r.stdout) as { results: { items: string[]; reach: number; frequency: number }[] };
    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.reach).toBeCloseTo(2 / 3, 12);
    expect(out.results[0]!.frequency).toBeCloseTo(2 / 3, 12);
    const one = JSON.parse((await cli("analyze", "turf", file("blankrow1.csv", "a,b\n1,0\n0,1\n , \n"), "--items", "a,b", "--k", "1", "--json")).stdout);
    expect(one.results.map((x: { reach: number }) => x.reach)).toEqual([1 / 3, 1 / 3]);
  });
  test("an empty line is still no row (nothing to read in it)", async () => {
    const r = await cli("analyze", "turf", file("emptyline.csv", "a,b\n1,0\n\n0,1\n"), "--items", "a,b", "--k", "2", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).results[0].reach).toBe(1);
  });
  test("a row of blanks with --weight has no weight: refused", async () => {
    const r = await cli("analyze", "turf", file("blankw.csv", "a,b,w\n1,0,1\n0,1,1\n,,\n"), "--items", "a,b", "--k", "1", "--weight", "w");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 4, w: "" is not a number');
    oneLine(r.stderr);
  });
  for (const bad of ["-1", "0.5", "2"]) {
    test(`an item cell of ${bad} is neither accepted (1) nor not (0): exit 1`, async () => {
      const r = await cli("analyze", "turf", file(`code${bad}.csv`, `a,b\n1,0\n0,${bad}\n`), "--items", "a,b", "--k", "1");
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`ideally: ${join(tmp, `code${bad}.csv`)}: line 3, b: "${bad}" is not 0 or 1 (blank is 0)\n`);
    });
  }
  test("--none takes 0/1 too", async () => {
    const r = await cli("analyze", "turf", file("none2code.csv", "a,b,n\n1,0,0\n0,0,2\n"), "--items", "a,b", "--k", "1", "--none", "n");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 3, n: "2" is not 0 or 1 (blank is 0)');
  });
});

describe("- reads the CSV from stdin (issue 38: `-` wherever a file is read)", () => {
  async function withStdin(stdin: Uint8Array | string, ...args: string[]) {
    const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], {
      stdin: typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" },
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  }
  const CSV = "a,b,c,d\n1,2,3,4\n2,3,4,5\n1.5,2.5,3.5,4.5\n";
  test("the same answer as the file, for each analysis", async () => {
    const cases: string[][] = [
      ["psm", ...PRICES],
      ["turf", "--items", "a,b,c,d", "--k", "2"],
    ];
    const binary = "a,b,c,d\n1,0,1,0\n0,1,1,0\n1,1,0,1\n";
    for (const [kind, ...opts] of cases) {
      const text = kind === "turf" ? binary : CSV;
      const fromFile = await cli("analyze", kind!, file(`in-${kind}.csv`, text), ...opts, "--json");
      expect(fromFile.code, fromFile.stderr).toBe(0);
      const fromStdin = await withStdin(text, "analyze", kind!, "-", ...opts, "--json");
      expect([fromStdin.code, fromStdin.stderr], kind).toEqual([0, ""]);
      expect(JSON.parse(fromStdin.stdout), kind).toEqual(JSON.parse(fromFile.stdout));
    }
  });
  test("a mistake names <stdin> and its line; windows-1252 is read as from a file", async () => {
    const bad = await withStdin("a,b,c,d\n1,2,3,4\n1,2,3,0x10\n", "analyze", "psm", "-", ...PRICES);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toStartWith("ideally: <stdin>: line 3");
    oneLine(bad.stderr);
    // "Prix é" in windows-1252 (0xE9 is not UTF-8 on its own): the header is read, the answer as from the file.
    const latin = new Uint8Array([...new TextEncoder().encode("Prix "), 0xe9, ...new TextEncoder().encode(",b,c,d\n1,2,3,4\n2,3,4,5\n")]);
    const p = join(tmp, "latin.csv");
    writeFileSync(p, latin);
    const [f, s] = await Promise.all([cli("analyze", "psm", p, ...PRICES, "--json"), withStdin(latin, "analyze", "psm", "-", ...PRICES, "--json")]);
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toEqual(JSON.parse(f.stdout));
    const empty = await withStdin("", "analyze", "psm", "-", ...PRICES);
    expect([empty.code, empty.stderr]).toEqual([1, "ideally: <stdin>: the file is empty\n"]);
  });
});
