// Who each access rule admits (api/src/access/policy.ts), against tests/fixtures/permissions.json
// (written by hand from docs/decisions.md "Permissions per role" and SPEC 6): the matrix rows, the
// token-only checks and the role check. Pure and fast (the mutation run of the access policy uses
// it with role-inheritance.test.ts); permissions.test.ts calls every operation as every caller.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { MATRIX_ROLES, accessLabel, checkBeforeDb, checkRole, matrixRow, parseAccessLabel, type Access } from "../../api/src/access/policy.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { ApiError } from "../../api/src/errors.ts";

const FIXTURE = JSON.parse(readFileSync(resolve(import.meta.dir, "../fixtures/permissions.json"), "utf8")) as {
  callers: string[];
  rules: Record<string, boolean[]>;
};
const allowed = (label: string, caller: string) => FIXTURE.rules[label]![FIXTURE.callers.indexOf(caller)]!;

/** The status an ApiError thrown by fn carries; 0 when fn passes. */
function statusOf(fn: () => void): number {
  try {
    fn();
    return 0;
  } catch (e) {
    if (e instanceof ApiError) return e.status;
    throw e;
  }
}
const member = (clientId: number | null = 1003): RequestCtx => ({ principal: { userId: 9004, isStaff: false, isSuperAdmin: false }, clientId, descendants: false });
const ops: RequestCtx = { principal: { userId: 9002, isStaff: true, isSuperAdmin: false }, clientId: null, descendants: false };
const superAdmin: RequestCtx = { principal: { userId: 9001, isStaff: true, isSuperAdmin: true }, clientId: null, descendants: false };

test("every rule of the fixture is a rule of the code, with the same label", () => {
  expect(Object.keys(FIXTURE.rules).sort()).toEqual(["anonymous", "member:Admin", "member:User", "member:Viewer", "self", "signedIn", "staff", "superAdmin"]);
  for (const label of Object.keys(FIXTURE.rules)) expect(accessLabel(parseAccessLabel(label)!)).toBe(label);
  for (const bad of ["", "member", "member:Owner", "Staff", "admin"]) expect(parseAccessLabel(bad)).toBeUndefined();
});

test("the code's matrix rows admit exactly the callers the fixture's rules do", () => {
  expect([...MATRIX_ROLES]).toEqual(FIXTURE.callers as (typeof MATRIX_ROLES)[number][]);
  for (const label of Object.keys(FIXTURE.rules)) {
    expect(matrixRow(parseAccessLabel(label)!), label).toEqual(Object.fromEntries(FIXTURE.callers.map((c) => [c, allowed(label, c)])) as never);
  }
});

test("the role check refuses (403) exactly the members the fixture's rules refuse", () => {
  const roles: [caller: string, role: 1 | 2 | 3][] = [
    ["Admin", 1],
    ["User", 2],
    ["Viewer", 3],
  ];
  for (const label of Object.keys(FIXTURE.rules)) {
    const a = parseAccessLabel(label)!;
    for (const [caller, role] of roles) {
      // staff and superAdmin rules are decided before the database (checkBeforeDb) for members.
      const got = statusOf(() => checkBeforeDb(a, member())) || statusOf(() => checkRole(a, member(), role));
      expect(got, `${caller} on ${label}`).toBe(allowed(label, caller) ? 0 : 403);
    }
    // Staff pass the role check on any rule; the token check decides the super-admin rule.
    expect(statusOf(() => checkBeforeDb(a, ops)) || statusOf(() => checkRole(a, ops, 0)), `staff on ${label}`).toBe(allowed(label, "staff") ? 0 : 403);
    expect(statusOf(() => checkBeforeDb(a, superAdmin)) || statusOf(() => checkRole(a, superAdmin, null)), `super admin on ${label}`).toBe(0);
  }
});

test("a member without a role on the client (none, or staff's 0) is refused; the message names the role needed", () => {
  const needs: [Access, string][] = [
    [{ kind: "member", minRole: 1 }, "This needs an Admin of the client"],
    [{ kind: "member", minRole: 2 }, "This needs a User or Admin of the client"],
    [{ kind: "member", minRole: 3 }, "This needs a member of the client"],
  ];
  for (const [a, message] of needs) {
    for (const role of [null, 0] as const) expect(() => checkRole(a, member(), role)).toThrow(message);
  }
  expect(statusOf(() => checkRole({ kind: "signedIn" }, member(), null))).toBe(0);
});

test("the token-only checks: 401 without sign-in, 400 for a member call without a client, 403 for staff-only rules", () => {
  expect(statusOf(() => checkBeforeDb({ kind: "anonymous" }, undefined))).toBe(0);
  expect(() => checkBeforeDb({ kind: "signedIn" }, undefined)).toThrow("Not signed in");
  for (const label of ["signedIn", "self", "member:Viewer", "staff", "superAdmin"])
    expect(
      statusOf(() => checkBeforeDb(parseAccessLabel(label)!, undefined)),
      label,
    ).toBe(401);
  expect(statusOf(() => checkBeforeDb({ kind: "member", minRole: 3 }, member(null)))).toBe(400);
  expect(() => checkBeforeDb({ kind: "member", minRole: 3 }, member(null))).toThrow("A clientId header is required");
  expect(statusOf(() => checkBeforeDb({ kind: "member", minRole: 1 }, ops))).toBe(0);
  expect(statusOf(() => checkBeforeDb({ kind: "signedIn" }, member(null)))).toBe(0);
  expect(() => checkBeforeDb({ kind: "staff" }, member())).toThrow("This is for Ideally staff only");
  expect(() => checkBeforeDb({ kind: "superAdmin" }, ops)).toThrow("This needs a super admin");
  expect(() => checkBeforeDb({ kind: "superAdmin" }, member())).toThrow("This needs a super admin");
});
