// The feasibility and quota explanation (issue 21): one API function says, per market, whether the
// panel can deliver the completes and, per target group, what its quotas mean; the web editor reads
// it from IncidenceEstimate (a project's rows), the CLI from Projects/FeasibilityEstimate (a project
// file's settings, nothing created). Expected figures from docs/decisions.md "Feasibility" (New
// Zealand's panel reaches 6,000 in a field period) and the census margin in the reference data (Stats
// NZ 2023: 51% female), worked out here by hand; the quota rules from README "Fielding".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const MALE = 4500001;
const FEMALE = 4500002;
const NZ = 1;
const AU = 2;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

const estimate = (body: unknown) => call(app, "acmeUser", T, "POST", "/api/v1/Projects/FeasibilityEstimate", body);

describe("Projects/FeasibilityEstimate: settings, nothing created", () => {
  test("the issue's shape (Female 50% in New Zealand, 100 completes): open to the other answers, feasible, and nothing written", async () => {
    const [before] = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects`;
    const r = await estimate({ regionIds: [NZ], sampleSize: 100, targets: [{ systemQuestionOptionId: FEMALE, quotaPercent: 50 }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const x = r.body.explanation;
    expect(x.quotasOk).toBe(true);
    expect(x.feasible).toBe(true);
    // A quota group open to its other answers screens nobody out: everyone qualifies, 6,000 x 1.
    expect(x.markets[0].text).toBe(
      "New Zealand: 100 completes: the panel reaches about 6,000 people there in a field period and 100% are expected to qualify, so about 6,000 completes can be delivered. Feasible.",
    );
    expect(x.groups).toHaveLength(1);
    expect(x.groups[0].text).toBe("Gender in New Zealand: Female 50%; the other 50% is open to the question's other answers.");
    expect(x.groups[0].totalPercent).toBe(50);
    expect(x.lines).toEqual([x.markets[0].text, x.groups[0].text]);
    const [after] = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects`;
    expect(after!.n).toBe(before!.n);
  });

  test("'only these' at 50%: no run can fill it, and the text names the group", async () => {
    const r = await estimate({ regionIds: [NZ], sampleSize: 100, targets: [{ systemQuestionOptionId: FEMALE, quotaPercent: 50, onlyThese: true }] });
    expect(r.status).toBe(200);
    const x = r.body.explanation;
    expect(x.quotasOk).toBe(false);
    expect(x.feasible).toBe(false);
    expect(x.groups[0].ok).toBe(false);
    expect(x.groups[0].text).toContain('"Gender"');
    expect(x.groups[0].text).toContain("50%");
    expect(x.groups[0].text).toContain("can never fill");
  });

  test("quotas at exactly 100% and above it (at and past the edge)", async () => {
    const full = await estimate({
      regionIds: [NZ],
      targets: [
        { systemQuestionOptionId: FEMALE, quotaPercent: 50 },
        { systemQuestionOptionId: MALE, quotaPercent: 50 },
      ],
    });
    expect(full.body.explanation.groups[0]).toMatchObject({ ok: true, totalPercent: 100, text: "Gender in New Zealand: Female 50%, Male 50%, 100% in all." });
    const over = await estimate({
      regionIds: [NZ],
      targets: [
        { systemQuestionOptionId: FEMALE, quotaPercent: 50.01 },
        { systemQuestionOptionId: MALE, quotaPercent: 50 },
      ],
    });
    expect(over.body.explanation.groups[0].ok).toBe(false);
    expect(over.body.explanation.groups[0].text).toContain("100.01%");
  });

  test("a target without a quota says who qualifies, and lowers the incidence to the census share", async () => {
    const r = await estimate({ regionIds: [NZ], sampleSize: 3060, targets: [{ systemQuestionOptionId: FEMALE }] });
    const x = r.body.explanation;
    expect(r.body.regions[0].incidence).toBe(0.51);
    // floor(6,000 x 0.51) = 3,060: exactly enough at 3,060 ...
    expect(x.markets[0].text).toBe(
      "New Zealand: 3,060 completes: the panel reaches about 6,000 people there in a field period and 51% are expected to qualify, so about 3,060 completes can be delivered. Feasible.",
    );
    expect(x.groups[0].text).toBe("Gender in New Zealand: only people answering Female qualify (no quotas).");
    // ... and one more is not.
    const more = await estimate({ regionIds: [NZ], sampleSize: 3061, targets: [{ systemQuestionOptionId: FEMALE }] });
    expect(more.body.explanation.feasible).toBe(false);
    expect(more.body.explanation.quotasOk).toBe(true);
    expect(more.body.explanation.markets[0].text).toEndWith("Not feasible: lower the completes to 3,060 or fewer, or target less narrowly.");
  });

  test("100,000 completes per market: each market judged on its own reach", async () => {
    const r = await estimate({ regionIds: [NZ, AU], sampleSize: 100000, targets: [] });
    const x = r.body.explanation;
    expect(x.markets.map((m: { regionName: string; feasible: boolean }) => [m.regionName, m.feasible])).toEqual([
      ["Australia", false],
      ["New Zealand", false],
    ]);
    expect(x.markets[0].text).toContain("about 25,000 completes can be delivered");
    expect(x.groups).toEqual([]);
  });

  test("a target the settings cannot take is refused at its path", async () => {
    const r = await estimate({ regionIds: [NZ], targets: [{ systemQuestionOptionId: 999999999 }] });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].path).toBe("targets.0.systemQuestionOptionId");
    const region = await estimate({ regionIds: [NZ], targets: [{ systemQuestionOptionId: FEMALE, regionId: AU }] });
    expect(region.status).toBe(400);
    expect(region.body.errors[0].path).toBe("targets.0.regionId");
  });
});

describe("IncidenceEstimate carries the same explanation for a project's saved targets", () => {
  test("the editor's words equal the CLI's for the same markets, completes and targets", async () => {
    const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Explained", projectTypeId: 1, frameworkId: 1000, regionIds: [NZ, AU], sampleSize: 400 });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const targets = [{ systemQuestionOptionId: FEMALE, quotaPercent: 60 }, { systemQuestionOptionId: MALE }];
    expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${p.body.id})/ChangeTargets`, { targets })).status).toBe(200);
    const saved = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${p.body.id})/IncidenceEstimate`, {});
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const settings = await estimate({ regionIds: [NZ, AU], sampleSize: 400, targets });
    expect(saved.body.explanation).toEqual(settings.body.explanation);
    // Markets in the regions' order (Australia sorts first).
    expect(saved.body.explanation.groups.map((g: { text: string }) => g.text)).toEqual([
      "Gender in Australia: Female 60%; the other 40% is open to Male (no quota) and the question's other answers.",
      "Gender in New Zealand: Female 60%; the other 40% is open to Male (no quota) and the question's other answers.",
    ]);
  });
});
