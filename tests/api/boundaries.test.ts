// Thresholds the docs state, each tested at the edge, just below it and just above it. The edges
// come from the docs, not from the code: docs/credits.md (a spend may take the balance down to
// -overdraftLimit, not below), DOMAIN.md / docs/decisions.md (a base with n_eff < 30 is small;
// 30 itself is not), SPEC 5 and 9 (NPD launch-week bands: up to 8, 9-16, 17-25, 26 on),
// docs/decisions.md (access tokens live 15 minutes).
import { describe, expect, test } from "bun:test";
import { assertAffordable } from "../../api/src/domains/credits/ledger.ts";
import { ApiError } from "../../api/src/errors.ts";
import { SMALL_BASE, twoProportionZTest } from "@ideally/analytics/significance";
import { npdBandAvailable, topTwoBoxes } from "../../api/src/domains/results/results.service.ts";
import { hmacKey, signAccessToken, TokenError, verifyAccessToken } from "../../api/src/auth/jwt.ts";
import { afterPage, type DefQuestion, type Page, type SurveyDefinition } from "../../api/src/domains/fielding/engine.ts";

/** The 409 assertAffordable throws, or null when the spend is allowed. */
function refusal(balance: number, overdraftLimit: number, spend: number): ApiError | null {
  try {
    assertAffordable({ clientId: 1, balance, overdraftLimit }, -spend, "this test");
    return null;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

describe("the overdraft limit: the balance may reach -limit, not go below it", () => {
  test("a spend that lands exactly on -limit is allowed", () => {
    expect(refusal(0, 100, 100)).toBeNull();
    expect(refusal(50.5, 100, 150.5)).toBeNull();
    // Float sums that are not exact in binary: 0.1 + 0.2 lands on the limit of 0.3.
    expect(refusal(0.1, 0.2, 0.3)).toBeNull();
  });
  test("a spend one hundredth below -limit is refused with 409 and the figures", () => {
    const e = refusal(0, 100, 100.01);
    expect(e?.status).toBe(409);
    expect(e?.message).toBe("Not enough credits for this test: balance 0.00, cost 100.01, overdraft limit 100.00 (the balance may not go below -100.00; it would be -100.01)");
  });
  test("a spend one hundredth short of -limit is allowed", () => {
    expect(refusal(0, 100, 99.99)).toBeNull();
  });
  test("with no overdraft, the balance may reach 0 and no further", () => {
    expect(refusal(25, 0, 25)).toBeNull();
    expect(refusal(25, 0, 25.01)?.status).toBe(409);
    expect(refusal(25, 0, 24.99)).toBeNull();
  });
  test("a credit or a zero change is never refused, even below the limit", () => {
    expect(refusal(-500, 100, -10)).toBeNull();
    expect(refusal(-500, 100, 0)).toBeNull();
    expect(refusal(-500, 100, 0.01)?.status).toBe(409);
  });
});

describe("small base: n_eff < 30 is small, 30 is not", () => {
  test("the constant is the documented 30", () => {
    expect(SMALL_BASE).toBe(30);
  });
  test("two-proportion z-test: either side at 30 is not small, below 30 is, above 30 is not", () => {
    expect(twoProportionZTest({ p: 0.6, n: 30 }, { p: 0.5, n: 30 }).smallBase).toBe(false);
    expect(twoProportionZTest({ p: 0.6, n: 29.99 }, { p: 0.5, n: 100 }).smallBase).toBe(true);
    expect(twoProportionZTest({ p: 0.6, n: 100 }, { p: 0.5, n: 29.99 }).smallBase).toBe(true);
    expect(twoProportionZTest({ p: 0.6, n: 30.01 }, { p: 0.5, n: 30.01 }).smallBase).toBe(false);
  });

  // One test option, 30 respondents on the 4-point scale: 12 Top, 6 SecondTop, 7 SecondBottom, 5 Bottom.
  // n_eff = (Σw)² / Σw² (Kish). Unit weights: (30)² / 30 = 30 exactly.
  const rows = (w: (i: number) => number) => {
    const counts = [12, 6, 7, 5];
    let k = 0;
    return counts.map((n, i) => {
      const ws = Array.from({ length: n }, () => w(k++));
      return { standardQuestionId: 5, testOptionId: 7, value: i + 1, n, sumW: ws.reduce((a, x) => a + x, 0), sumW2: ws.reduce((a, x) => a + x * x, 0) };
    });
  };
  test("results' top-2-box: n_eff exactly 30 is not small", () => {
    const m = topTwoBoxes(
      rows(() => 1),
      95,
      null,
    ).get(5)![0]!;
    expect(m.nEff).toBe(30);
    expect(m.top2).toBeCloseTo(18 / 30, 12);
    expect(m.smallBase).toBe(false);
  });
  test("results' top-2-box: n_eff just under 30 is small", () => {
    // One respondent weighted 1.1, the rest 1: (30.1)² / (29 + 1.21) = 29.9901...
    const m = topTwoBoxes(
      rows((i) => (i === 0 ? 1.1 : 1)),
      95,
      null,
    ).get(5)![0]!;
    expect(m.nEff).toBeCloseTo((30.1 * 30.1) / 30.21, 9);
    expect(m.smallBase).toBe(true);
  });
  test("results' top-2-box: 31 unit-weight respondents (n_eff 31) are not small", () => {
    const r = rows(() => 1);
    r[0] = { ...r[0]!, n: 13, sumW: 13, sumW2: 13 };
    const m = topTwoBoxes(r, 95, null).get(5)![0]!;
    expect(m.nEff).toBe(31);
    expect(m.smallBase).toBe(false);
  });
});

describe("NPD launch-week bands (SPEC 5 and 9): up to 8, 9-16, 17-25, 26 on", () => {
  // The bands as SPEC 9 states them, not as the benchmark_types table holds them.
  const band = { 4: { minWeek: null, maxWeek: 8 }, 5: { minWeek: 9, maxWeek: 16 }, 6: { minWeek: 17, maxWeek: 25 }, 7: { minWeek: 26, maxWeek: null } } as const;
  const cases: [type: 4 | 5 | 6 | 7, week: number, available: boolean][] = [
    [4, 1, true],
    [4, 7, true],
    [4, 8, true],
    [4, 9, false],
    [5, 8, false],
    [5, 9, true],
    [5, 10, true],
    [5, 15, true],
    [5, 16, true],
    [5, 17, false],
    [6, 16, false],
    [6, 17, true],
    [6, 18, true],
    [6, 24, true],
    [6, 25, true],
    [6, 26, false],
    [7, 25, false],
    [7, 26, true],
    [7, 27, true],
  ];
  test.each(cases)("type %d at week %d: available %p", (type, week, available) => {
    expect(npdBandAvailable(type, week, band[type])).toBe(available);
  });
  test("types below 4 are offered at any week, and a band type with no week is not", () => {
    expect(npdBandAvailable(1, null, { minWeek: null, maxWeek: null })).toBe(true);
    expect(npdBandAvailable(3, 40, { minWeek: null, maxWeek: null })).toBe(true);
    expect(npdBandAvailable(4, null, band[4])).toBe(false);
  });
});

describe("access tokens live 15 minutes (docs/decisions.md)", () => {
  test("valid a millisecond before 15 minutes, expired at 15 minutes and after", async () => {
    const key = await hmacKey("boundary-test-secret-of-enough-length-0123456789");
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);
    const token = await signAccessToken(key, { sub: "9004", sid: "00000000-0000-0000-0000-000000000001" }, t0);
    const expiredAt = async (now: number) => {
      try {
        await verifyAccessToken(key, token, now);
        return false;
      } catch (e) {
        if (e instanceof TokenError && e.reason === "expired") return true;
        throw e;
      }
    };
    expect(await expiredAt(t0 + 15 * 60 * 1000 - 1)).toBe(false);
    expect(await expiredAt(t0 + 15 * 60 * 1000)).toBe(true);
    expect(await expiredAt(t0 + 15 * 60 * 1000 + 1)).toBe(true);
    expect(await expiredAt(t0)).toBe(false);
  });
});

describe("a target's quota: completes allowed per option; full at the quota (fielding)", () => {
  // A minimal questionnaire: the demographics page asks the age group (a target with a quota of 20
  // completes for 18-24 and none for 25-34), then one concept page.
  const ageQ = {
    key: "s51",
    systemQuestionId: 51,
    projectQuestionId: null,
    questionId: null,
    standardQuestionId: null,
    positionId: null,
    testOptionId: null,
    type: "single",
    title: "Age",
    text: "Your age?",
    options: [],
    minChoices: null,
    maxChoices: null,
  } satisfies DefQuestion;
  const all: Page[] = [
    { id: "demographics", kind: "demographics", testOptionId: null, questions: [ageQ] },
    { id: "concept-1", kind: "concept", testOptionId: 1, questions: [] },
  ];
  const def = { targets: [{ key: "s51", optionIds: [5100001, 5100002], quotas: { "5100001": 20 } }] } as unknown as SurveyDefinition;
  const after = (answer: number, completes: number) => afterPage(def, all, 0, { s51: answer }, { completesByOption: {}, completesByAnswer: { "s51:5100001": completes } }).status;

  test("19 completes: one more may start; 20 (the quota) and 21: over quota", () => {
    expect(after(5100001, 19)).toBe("InProgress");
    expect(after(5100001, 20)).toBe("OverQuota");
    expect(after(5100001, 21)).toBe("OverQuota");
  });
  test("an option without a quota is never full; an answer outside the target is screened out", () => {
    expect(after(5100002, 1000)).toBe("InProgress");
    expect(after(5100003, 0)).toBe("ScreenedOut");
  });
});
