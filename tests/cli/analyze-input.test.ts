// `ideally analyze` refuses bad input (finding 9): each case exits non-zero with one line on
// stderr, or warns; the expected outcomes come from the list, not from the code.
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
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"0x10" is not a number');
    oneLine(r.stderr);
    // Decimal forms are numbers.
    expect((await cli("analyze", "psm", file("dec.csv", "a,b,c,d\n1,2.5,3e0,+4\n.5,3,4,5\n"), ...PRICES, "--json")).code).toBe(0);
  });
  test("a negative price is refused", async () => {
    const r = await cli("analyze", "psm", file("neg.csv", "a,b,c,d\n-1,2,3,4\n1,2,3,4\n"), ...PRICES, "--json");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("negative price");
    oneLine(r.stderr);
  });
  test("no consistent respondent: refused, not an empty result with exit 0", async () => {
    const r = await cli("analyze", "psm", file("bad.csv", "a,b,c,d\n4,3,2,1\n5,5,5,5\n"), ...PRICES, "--json");
    expect(r.code).toBe(2);
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
