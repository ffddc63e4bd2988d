// The lifecycle's expected transitions: tests/fixtures/lifecycle.json, written by hand from SPEC 4
// and docs/decisions.md, never from the code's TRANSITIONS (so a wrong cell in the code fails).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export interface ExpectedCell {
  /** null: refused (409). */
  to: number[] | "stays" | "any" | null;
  staffOnly: boolean;
}
export const FIXTURE = JSON.parse(readFileSync(resolve(import.meta.dir, "../fixtures/lifecycle.json"), "utf8")) as {
  statuses: { code: number; name: string }[];
  actions: Record<string, string[]>;
};
export const FX_STATUS = FIXTURE.statuses.map((x) => x.code);
export const fxName = (code: number) => FIXTURE.statuses.find((x) => x.code === code)!.name;
export function expected(a: string, s: number): ExpectedCell {
  const raw = FIXTURE.actions[a]![FX_STATUS.indexOf(s)]!;
  const staffOnly = raw.endsWith(" staff");
  const v = raw.replace(/ staff$/, "");
  return { staffOnly, to: v === "-" ? null : v === "stays" || v === "any" ? v : v.split("|").map(Number) };
}
/** The actions the fixture allows from a status, in the fixture's order. */
export const fxAllowed = (s: number) => Object.keys(FIXTURE.actions).filter((a) => expected(a, s).to !== null);
