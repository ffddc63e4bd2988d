// The lifecycle's transition table (api/src/domains/lifecycle/transitions.ts) against the one
// written by hand from SPEC 4 and docs/decisions.md (tests/fixtures/lifecycle.json), and the
// generated table in docs/project-lifecycle.md against the code's. Pure and fast: the mutation
// run of the lifecycle table uses this file (scripts/mutation.ts); lifecycle.test.ts calls every
// cell through the API.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  ACTIONS,
  STATUS_CODES,
  TABLE_BEGIN,
  TABLE_END,
  TRANSITIONS,
  allowedActions,
  cellFor,
  isStatusCode,
  refusalMessage,
  renderTransitionTable,
  statusName,
  withTable,
  type Action,
  type StatusCode,
} from "../../api/src/domains/lifecycle/transitions.ts";
import { expected, FIXTURE, FX_STATUS, fxAllowed, fxName } from "../helpers/lifecycle-fixture.ts";

describe("the transition table", () => {
  test("the fixture names SPEC 4's nine statuses and every action the code has, in the same order", () => {
    expect(FX_STATUS).toEqual([0, 50, 100, 200, 300, 400, 800, 900, 950]);
    expect([...STATUS_CODES]).toEqual(FX_STATUS as StatusCode[]);
    expect([...ACTIONS]).toEqual(Object.keys(FIXTURE.actions) as Action[]);
    for (const a of ACTIONS) expect(FIXTURE.actions[a]!.length, `${a} has nine cells`).toBe(9);
  });

  test("the code's table agrees with the hand-written one, cell by cell", () => {
    const wrong: string[] = [];
    for (const a of ACTIONS) {
      for (const s of STATUS_CODES) {
        const e = expected(a, s);
        const c = TRANSITIONS[a][s];
        const got = !c ? null : c.to.length === 1 && c.to[0] === s ? "stays" : c.to.length === STATUS_CODES.length ? "any" : [...c.to].sort((x, y) => x - y).join("|");
        const want = e.to === null ? null : typeof e.to === "string" ? e.to : e.to.join("|");
        // A one-status cell whose target is its own status reads "stays" either way.
        const same = got === want || (Array.isArray(e.to) && e.to.length === 1 && e.to[0] === s && got === "stays");
        if (!same || (c?.staffOnly ?? false) !== e.staffOnly) wrong.push(`${a} from ${s}: code ${got}${c?.staffOnly ? " staff" : ""}, expected ${want}${e.staffOnly ? " staff" : ""}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("docs/project-lifecycle.md carries exactly the code's table, and its cells are the hand-written fixture's", () => {
    const doc = readFileSync(resolve(import.meta.dir, "../../docs/project-lifecycle.md"), "utf8");
    const a = doc.indexOf(TABLE_BEGIN);
    const b = doc.indexOf(TABLE_END);
    expect(a, "the document has the table's markers").toBeGreaterThanOrEqual(0);
    const inDoc = doc.slice(a, b + TABLE_END.length);
    expect(inDoc, "run `bun run api/src/domains/lifecycle/transitions.ts` to regenerate the document's table").toBe(renderTransitionTable());
    // The document's grid against the hand-written fixture, cell by cell (not against the code's
    // rendering, which a wrong cell in the code would carry into a regenerated document).
    const fxCell = (a: string, st: number) => {
      const e = expected(a, st);
      const target = e.to === null ? "—" : e.to === "stays" || e.to === "any" ? e.to : `→ ${e.to.join(" or ")}`;
      return e.staffOnly ? `${target} (staff)` : target;
    };
    const grid = inDoc
      .split("\n")
      .filter((l) => l.startsWith("| "))
      .map((l) => l.slice(2, -2).split(" | "));
    expect(grid[0], "the header: SPEC 4's statuses with their names").toEqual(["action", ...FX_STATUS.map((st) => `${st} ${fxName(st)}`)]);
    expect(grid.slice(2), "every action's row as the fixture has it").toEqual(Object.keys(FIXTURE.actions).map((a) => [a, ...FX_STATUS.map((st) => fxCell(a, st))]));
    // Every action row has nine cells.
    for (const act of ACTIONS) {
      const row = inDoc.split("\n").find((l) => l.startsWith(`| ${act} |`));
      expect(row, `a row for ${act}`).toBeDefined();
      expect(row!.split("|").length - 3, `${act} has a cell per status`).toBe(9);
    }
  });

  test("names, allowed actions and the 409 message of every status agree with the fixture", () => {
    for (const s of FX_STATUS) {
      expect(statusName(s)).toBe(fxName(s));
      expect(isStatusCode(s)).toBe(true);
      expect(allowedActions(s)).toEqual(fxAllowed(s) as Action[]);
      expect(refusalMessage("Submit", 7, s)).toBe(`Cannot Submit project 7: it is ${s} ${fxName(s)}. Allowed from ${fxName(s)}: ${fxAllowed(s).join(", ") || "none"}.`);
    }
    for (const odd of [-1, 1, 49, 51, 500, 1000]) {
      expect(isStatusCode(odd)).toBe(false);
      expect(cellFor("Duplicate", odd)).toBeNull();
      expect(allowedActions(odd)).toEqual([]);
      expect(statusName(odd)).toBe(`status ${odd}`);
    }
    expect(refusalMessage("Submit", 7, 1)).toBe("Cannot Submit project 7: it is 1 status 1. Allowed from status 1: none.");
  });

  test("withTable replaces exactly the generated section of a document, and refuses one without markers", () => {
    const doc = `# Title\n\nbefore\n\n${TABLE_BEGIN}\nold table\n${TABLE_END}\n\nafter\n`;
    expect(withTable(doc)).toBe(`# Title\n\nbefore\n\n${renderTransitionTable()}\n\nafter\n`);
    expect(() => withTable("# no markers")).toThrow("docs/project-lifecycle.md has no transition table markers");
    expect(() => withTable(`${TABLE_END}\n${TABLE_BEGIN}`)).toThrow("no transition table markers");
    expect(() => withTable(`${TABLE_BEGIN} only the start`)).toThrow("no transition table markers");
  });
});
