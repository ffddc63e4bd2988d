// The decision records (docs/decisions/NNNN-slug.md) and their index (docs/decisions.md), issue 34:
// each record has its title line, a status of an allowed form and the five headings; the numbers
// run 0001, 0002, ... with no gap or repeat; the index lists every record once (its title, file and
// status) and nothing else; a record marked superseded or amended names an existing, later record
// that says so back; and every citation of docs/decisions.md by a quoted title, anywhere in the
// repository (code comments, migrations, fixtures, docs), names a record's title or a name the
// index lists for a record, so a reader who follows it finds the record.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const DIR = join(ROOT, "docs/decisions");
const INDEX = join(ROOT, "docs/decisions.md");
const HEADINGS = ["Context", "Decision", "Alternatives considered", "Consequences"];
const OPTIONAL_LAST = "History";

interface Ref {
  number: string;
  file: string;
}

interface Record {
  number: string;
  file: string;
  title: string;
  status: string;
  kind: "Accepted" | "Superseded" | "Amended";
  by: Ref[];
  supersedes: Ref[];
  amends: Ref[];
  headings: string[];
  emptyHeadings: string[];
  text: string;
}

const LINK = /^\[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\)$/;

/** "[0111](0111-a-stock-driver.md), [0103](...)" as references, or null when any part is not such a link. */
function refs(list: string): Ref[] | null {
  const out: Ref[] = [];
  for (const part of list.split(", ")) {
    const m = part.match(LINK);
    if (!m) return null;
    out.push({ number: m[1]!, file: m[2]! });
  }
  return out;
}

function parseRecord(file: string): Record {
  const text = readFileSync(join(DIR, file), "utf8");
  const lines = text.split("\n");
  const number = file.slice(0, 4);
  const head = lines[0]!.match(/^# (\d{4})\. (.+)$/);
  if (!head) throw new Error(`${file}: the first line is not "# NNNN. Title"`);
  if (head[1] !== number) throw new Error(`${file}: the title line's number ${head[1]} is not the file's`);
  const statusLine = lines.find((l) => l.startsWith("Status: "));
  if (!statusLine) throw new Error(`${file}: no "Status: " line`);
  const status = statusLine.slice("Status: ".length);
  let kind: Record["kind"];
  let by: Ref[] = [];
  if (status === "Accepted") kind = "Accepted";
  else {
    const m = status.match(/^(Superseded|Amended) by (.+)$/);
    const list = m ? refs(m[2]!) : null;
    if (!m || !list || (m[1] === "Superseded" && list.length !== 1)) {
      throw new Error(`${file}: status "${status}" is none of "Accepted", "Superseded by [NNNN](file)", "Amended by [NNNN](file), ..."`);
    }
    kind = m[1] as "Superseded" | "Amended";
    by = list;
  }
  const relation = (name: string): Ref[] => {
    const line = lines.find((l) => l.startsWith(`${name}: `));
    if (!line) return [];
    const list = refs(line.slice(name.length + 2));
    if (!list) throw new Error(`${file}: "${line}" is not a list of [NNNN](file) links`);
    return list;
  };
  // The sections: every "## " heading, and whether anything but blank lines follows it.
  const headings: string[] = [];
  const emptyHeadings: string[] = [];
  let body = 0;
  for (const line of lines) {
    if (line.startsWith("## ")) {
      if (headings.length > 0 && body === 0) emptyHeadings.push(headings.at(-1)!);
      headings.push(line.slice(3));
      body = 0;
    } else if (line.trim() !== "" && headings.length > 0) body++;
  }
  if (headings.length > 0 && body === 0) emptyHeadings.push(headings.at(-1)!);
  return { number, file, title: head[2]!, status, kind, by, supersedes: relation("Supersedes"), amends: relation("Amends"), headings, emptyHeadings, text };
}

function records(): Record[] {
  if (!existsSync(DIR)) return [];
  return readdirSync(DIR)
    .sort()
    .map((f) => {
      if (!/^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.test(f)) throw new Error(`docs/decisions/${f}: not a record's name (NNNN-short-slug.md)`);
      return parseRecord(f);
    });
}

/** The status as the index writes it: the numbers without their links. */
function plainStatus(r: Record): string {
  return r.kind === "Accepted" ? "Accepted" : `${r.kind} by ${r.by.map((b) => b.number).join(", ")}`;
}

/** A citation or a title compared without case, quotes, repeated spaces or a trailing "(issue 23)". */
function key(s: string): string {
  return s
    .toLowerCase()
    .replace(/["'\u201c\u201d]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\s*\([^()]*\)$/, "")
    .trim();
}

interface IndexDoc {
  lines: { number: string; title: string; file: string; status: string; summary: string }[];
  stray: string[];
  aliases: { name: string; number: string }[];
}

const INDEX_LINE = /^- \[(\d{4})\. (.+)\]\(decisions\/(\d{4}-[a-z0-9-]+\.md)\) — (.+?) — (.+)$/;

function readIndex(): IndexDoc {
  const text = readFileSync(INDEX, "utf8");
  const out: IndexDoc = { lines: [], stray: [], aliases: [] };
  // Sections whose prose is about the index itself; every other "## " section is an area of records.
  const prose = new Set(["Adding a record", "Names cited that are not titles"]);
  let section = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      section = line.slice(3);
      continue;
    }
    if (line.startsWith("#") && !line.startsWith("# ")) {
      out.stray.push(line);
      continue;
    }
    if (section === "Names cited that are not titles") {
      const m = line.match(/^\| "([^"]+)" \| \[(\d{4})\]\(decisions\/\d{4}-[a-z0-9-]+\.md\) \|$/);
      if (m) out.aliases.push({ name: m[1]!, number: m[2]! });
      continue;
    }
    if (section === "" || prose.has(section) || line.trim() === "") continue;
    const m = line.match(INDEX_LINE);
    if (m) out.lines.push({ number: m[1]!, title: m[2]!, file: m[3]!, status: m[4]!, summary: m[5]! });
    else out.stray.push(line);
  }
  return out;
}

/** Every file a citation may sit in: code, migrations, tests, fixtures, scripts and the docs. */
function citingFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(md|ts|tsx|sql|json)$/.test(name)) out.push(path);
    }
  };
  for (const top of ["api", "web", "cli", "contracts", "analytics", "migrations", "tests", "scripts", "docs"]) {
    if (existsSync(join(ROOT, top))) walk(join(ROOT, top));
  }
  for (const name of readdirSync(ROOT)) if (name.endsWith(".md")) out.push(join(ROOT, name));
  return out.filter((p) => p !== import.meta.path && !p.startsWith(`${DIR}/`) && p !== INDEX);
}

/**
 * The quoted names after each "decisions.md" in a text: `decisions.md "A"`, `decisions.md, "A"`,
 * `decisions.md ("A", "B")`, `decisions.md sections 'A'`, a name broken over lines of a comment
 * (`//`, ` * `, `--`), and JSON's escaped quotes.
 */
function citationsIn(source: string): string[] {
  const text = source.replace(/\\"/g, '"');
  const out: string[] = [];
  for (const m of text.matchAll(/decisions\.md/g)) {
    let rest = text.slice(m.index + m[0].length, m.index + m[0].length + 400);
    rest = rest.replace(/[ \t]*\r?\n[ \t]*(?:\/\/|\*(?!\*)|--)?[ \t]*/g, " ");
    rest = rest.replace(/^[\s,(]*(?:sections?\s+)?/, "");
    for (;;) {
      const q = rest.match(/^"([^"]{1,150})"|^'([^']{1,150})'/);
      if (!q) break;
      out.push(q[1] ?? q[2]!);
      rest = rest.slice(q[0].length).replace(/^\s*(?:,|and)\s*/, "");
    }
  }
  return out;
}

describe("decision records (docs/decisions/)", () => {
  const all = records();

  test("there are records, each with its title line, a status of an allowed form and the five headings in order", () => {
    expect(all.length).toBeGreaterThan(0);
    for (const r of all) {
      const expected = r.headings.length === HEADINGS.length + 1 ? [...HEADINGS, OPTIONAL_LAST] : HEADINGS;
      expect({ file: r.file, headings: r.headings }).toEqual({ file: r.file, headings: expected });
      expect({ file: r.file, empty: r.emptyHeadings }).toEqual({ file: r.file, empty: [] });
    }
  });

  test("no two titles read alike once case, quotes and a trailing parenthesis are set aside", () => {
    expect(all.length).toBeGreaterThan(0);
    const keys = all.map((r) => key(r.title));
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  test("numbers are unique and contiguous from 0001 (and a branch's placeholders from 9001)", () => {
    expect(all.length).toBeGreaterThan(0);
    // A record written on a branch takes a placeholder number from 9001 up, renumbered to the next
    // free number when the branch is merged; each run is contiguous on its own.
    const numbers = all.map((r) => r.number).filter((n) => n < "9001");
    expect(numbers).toEqual(numbers.map((_, i) => String(i + 1).padStart(4, "0")));
    const placeholders = all.map((r) => r.number).filter((n) => n >= "9001");
    expect(placeholders).toEqual(placeholders.map((_, i) => String(9001 + i)));
  });

  test("every 'Superseded by' and 'Amended by' names an existing, later record, which names it back", () => {
    expect(all.filter((r) => r.kind !== "Accepted").length).toBeGreaterThan(0);
    const byNumber = new Map(all.map((r) => [r.number, r]));
    const problems: string[] = [];
    for (const r of all) {
      for (const b of r.by) {
        const later = byNumber.get(b.number);
        if (!later) problems.push(`${r.file}: ${r.kind} by ${b.number}, which does not exist`);
        else if (later.file !== b.file) problems.push(`${r.file}: links ${b.file} for ${b.number}, whose file is ${later.file}`);
        else if (b.number <= r.number) problems.push(`${r.file}: ${r.kind} by ${b.number}, which is not a later record`);
        else if (!(r.kind === "Superseded" ? later.supersedes : later.amends).some((x) => x.number === r.number)) {
          problems.push(`${later.file}: does not say "${r.kind === "Superseded" ? "Supersedes" : "Amends"}: [${r.number}](${r.file})"`);
        }
      }
      for (const [list, kind] of [
        [r.supersedes, "Superseded"],
        [r.amends, "Amended"],
      ] as const) {
        for (const x of list) {
          const earlier = byNumber.get(x.number);
          if (!earlier || earlier.kind !== kind || !earlier.by.some((b) => b.number === r.number)) {
            problems.push(`${r.file}: names ${x.number}, whose status is not "${kind} by ${r.number}"`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test("the index lists every record once, with its title, file and status, and nothing else", () => {
    expect(all.length).toBeGreaterThan(0);
    const index = readIndex();
    expect(index.stray).toEqual([]);
    const listed = index.lines.map((l) => `${l.number} | ${l.title} | ${l.file} | ${l.status}`).sort();
    const expected = all.map((r) => `${r.number} | ${r.title} | ${r.file} | ${plainStatus(r)}`).sort();
    expect(listed).toEqual(expected);
    for (const l of index.lines) expect(l.summary.trim().length).toBeGreaterThan(10);
  });

  test("every quoted citation of docs/decisions.md in the repository names a record's title or a name the index gives", () => {
    expect(all.length).toBeGreaterThan(0);
    const known = new Set([...all.map((r) => key(r.title)), ...readIndex().aliases.map((a) => key(a.name))]);
    const unresolved: string[] = [];
    let count = 0;
    for (const path of citingFiles()) {
      for (const c of citationsIn(readFileSync(path, "utf8"))) {
        count++;
        if (!known.has(key(c))) unresolved.push(`${relative(ROOT, path)}: "${c}"`);
      }
    }
    expect(count).toBeGreaterThan(40);
    expect(unresolved).toEqual([]);
    // A name the index gives for a record must occur in that record, or it would lead nowhere.
    const byNumber = new Map(all.map((r) => [r.number, r]));
    const misplaced = readIndex()
      .aliases.filter((a) => !key(byNumber.get(a.number)?.text ?? "").includes(key(a.name)))
      .map((a) => `"${a.name}" is not in record ${a.number}`);
    expect(misplaced).toEqual([]);
  });
});

describe("the citation reader", () => {
  test("reads the forms the repository uses", () => {
    // Written by hand from the forms found in the repository (grep decisions.md).
    expect(citationsIn('see docs/decisions.md "Fielding".')).toEqual(["Fielding"]);
    expect(citationsIn('docs/decisions.md ("Project lifecycle", "Demo projects")')).toEqual(["Project lifecycle", "Demo projects"]);
    expect(citationsIn('(docs/decisions.md, "One user\'s share: 8 of 16").')).toEqual(["One user's share: 8 of 16"]);
    expect(citationsIn('// as docs/decisions.md "Quotas that can\n * be met" says')).toEqual(["Quotas that can be met"]);
    expect(citationsIn('-- (docs/decisions.md\n-- "Samplify"): the run')).toEqual(["Samplify"]);
    expect(citationsIn("docs/decisions.md sections 'Project lifecycle' (approval")).toEqual(["Project lifecycle"]);
    expect(citationsIn('"reason (docs/decisions.md \\"Respondent quality\\")."')).toEqual(["Respondent quality"]);
    expect(citationsIn("(docs/decisions.md, LIMITS in auth.service.ts)")).toEqual([]);
    expect(citationsIn("docs/decisions.md and docs/project-lifecycle.md")).toEqual([]);
  });

  test("compares titles without case, quotes or a trailing parenthesis", () => {
    expect(key('Market reach: "None of these" (issue 20, finding 8)')).toBe(key("Market reach: none of these"));
    expect(key("A stock driver (issue 34, 2026-12-06)")).toBe(key("A stock driver"));
    expect(key("Fielding")).not.toBe(key("Field periods"));
  });
});
