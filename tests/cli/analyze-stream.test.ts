// `ideally analyze` reads its file as a stream (cli/src/commands/analyze/input.ts): files larger
// than one read chunk (256 KiB), an encoding found wrong after rows were already taken, a BOM with
// CRLF line ends and a group name spanning lines. Expected counts are written out by hand.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAIN = join(import.meta.dir, "../../cli/src/main.ts");
const tmp = mkdtempSync(join(tmpdir(), "ideally-stream-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
const file = (name: string, content: string | Uint8Array) => {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
};
const COMPARE = ["--value", "v", "--top", "1", "--group", "g", "--json"];
type Out = { groups: { group: string; n: number; share: number }[] };

describe("analyze reads its file as a stream", () => {
  test("a byte that is not UTF-8 past the first chunk: the whole file is read again as windows-1252, counted once", async () => {
    // 80,000 rows of group A (value 1 on even rows: share 1/2), then one row of group é in
    // windows-1252 (0xE9), value 2: far past the first 256 KiB read.
    const body = Array.from({ length: 80_000 }, (_, i) => `A,${i % 2 === 0 ? 1 : 2}\n`).join("");
    const bytes = new Uint8Array([...new TextEncoder().encode(`g,v\n${body}`), 0xe9, 0x2c, 0x32, 0x0a]);
    expect(bytes.length).toBeGreaterThan(256 * 1024);
    const r = await cli("analyze", "compare", file("late.csv", bytes), ...COMPARE);
    expect(r.stderr).toBe("warning: group é has 1 respondent: no variance\n");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.groups.map((g) => [g.group, g.n, g.share])).toEqual([
      ["A", 80_000, 0.5],
      ["é", 1, 0],
    ]);
  });

  test("a BOM, CRLF line ends and a quoted group name over two lines; an error names the line after them", async () => {
    const text = '\ufeffg,v\r\n"Two\r\nlines",1\r\nB,2\r\nB,1\r\n';
    const r = await cli("analyze", "compare", file("crlf.csv", text), ...COMPARE);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Out).groups.map((g) => [g.group, g.n, g.share])).toEqual([
      ["B", 2, 0.5],
      ["Two\r\nlines", 1, 1],
    ]);
    const bad = await cli("analyze", "compare", file("crlf-bad.csv", '\ufeffg,v,w\r\n"Two\r\nlines",1,1\r\nB,2,x\r\n'), ...COMPARE, "--weight", "w");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`ideally: ${join(tmp, "crlf-bad.csv")}: line 4, w: "x" is not a number\n`);
  });

  test("a bad cell early in a large file: exit 1 naming it, after the ragged rows found further on are reported", async () => {
    const rows = Array.from({ length: 40_000 }, () => "1,2,3,4\n").join("");
    const text = `a,b,c,d\n1,2,3,x\n${rows}1,2\n`;
    const f = file("late-ragged.csv", text);
    const r = await cli("analyze", "psm", f, "--too-cheap", "a", "--cheap", "b", "--expensive", "c", "--too-expensive", "d");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`warning: ${f}: 1 row without the header's 4 fields left out (line 40003 has 2)\nideally: ${f}: line 2, d: "x" is not a number\n`);
  });

  test("turf over more respondents than one 32-bit word and one growth of the bitsets (1024 words)", async () => {
    // 40,000 respondents: item a accepted by every 4th (10,000), b by every 5th (8,000); both by
    // every 20th (2,000): reach of {a, b} = (10,000 + 8,000 − 2,000)/40,000 = 0.4.
    const rows = Array.from({ length: 40_000 }, (_, i) => `${i % 4 === 0 ? 1 : 0},${i % 5 === 0 ? 1 : 0}\n`).join("");
    const r = await cli("analyze", "turf", file("wide.csv", `a,b\n${rows}`), "--items", "a,b", "--k", "2", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { results: { items: string[]; reach: number; frequency: number }[] };
    expect(out.results).toEqual([{ items: ["a", "b"], reach: 0.4, frequency: 0.45 }]);
  });
});
