// The management pages' pure helpers: months for the dashboards' charts, the clients an admin
// reaches beneath the current one, and the ledger's signed amounts.
import { describe, expect, test } from "bun:test";
import { formatSigned, lastMonths, perMonth, subtreeOf } from "../../web/src/routes/manage/manage.ts";

describe("lastMonths and perMonth", () => {
  test("twelve UTC months ending with the current one, across a year boundary", () => {
    const m = lastMonths(12, new Date("2026-02-10T12:00:00Z"));
    expect(m.length).toBe(12);
    expect(m[0], "oldest first").toBe("2025-03");
    expect(m.at(-1), "the current month last").toBe("2026-02");
  });

  test("sums per month, zero for empty months, ignores rows outside the window", () => {
    const months = ["2026-01", "2026-02", "2026-03"];
    const rows = [
      { at: "2026-01-31T23:59:59Z", credits: -100 },
      { at: "2026-02-01T00:00:00Z", credits: -40.5 },
      { at: "2026-02-15T10:00:00Z", credits: 10 }, // a refund lowers the month's net spend
      { at: "2025-12-31T10:00:00Z", credits: -999 },
    ];
    expect(
      perMonth(
        rows,
        months,
        (r) => r.at,
        (r) => -r.credits,
      ),
    ).toEqual([
      { month: "2026-01", value: 100 },
      { month: "2026-02", value: 30.5 },
      { month: "2026-03", value: 0 },
    ]);
  });
});

describe("subtreeOf", () => {
  const policies = {
    isIdeallyAdmin: false,
    value: [
      { clientId: 1, clientName: "Acme", tier: "Enterprise", parentId: null },
      { clientId: 2, clientName: "Acme Foods", tier: "Org", parentId: 1 },
      { clientId: 4, clientName: "Team B", tier: "Team", parentId: 2 },
      { clientId: 3, clientName: "Team A", tier: "Team", parentId: 2 },
      { clientId: 9, clientName: "Globex", tier: "Team", parentId: null },
    ],
  } as never;

  test("the client first, then its children by name, depth first; other trees left out", () => {
    const ids = subtreeOf(policies, { id: 1, name: "Acme", tier: "Enterprise", parentId: null, industry: null }).map((c) => c.clientId);
    expect(ids).toEqual([1, 2, 3, 4]);
  });

  test("a team alone; a client missing from the policies is still itself", () => {
    expect(subtreeOf(policies, { id: 3, name: "Team A", tier: "Team", parentId: 2, industry: null }).map((c) => c.clientId)).toEqual([3]);
    expect(subtreeOf(undefined, { id: 7, name: "New", tier: "Team", parentId: null, industry: null }).map((c) => c.clientName)).toEqual(["New"]);
  });
});

test("ledger amounts carry their sign", () => {
  expect(formatSigned(1250)).toBe("+1,250");
  expect(formatSigned(-180.5)).toBe("−180.5");
  expect(formatSigned(0)).toBe("0");
});
