// The field period as the status pages say it (README "Field periods": a run with quota open and no
// complete for 24 hours is "stalled"; every run "closes at" its field end with the completes it has
// and the shortfall is refunded). Times in UTC here so the words do not depend on the machine.
import { describe, expect, test } from "bun:test";
import { fieldPeriodText } from "../../web/src/features/fielding.ts";

const END = "2026-12-09T14:30:00.000Z";

describe("fieldPeriodText", () => {
  test("a Live run filling closes at its field end", () => {
    expect(fieldPeriodText({ surveyStatusId: 50, fieldEndAt: END, stalledAt: null }, "UTC")).toEqual({ label: "Closes at 9 Dec 2026, 14:30 UTC", detail: null, tone: "blue" });
  });

  test("a stalled Live run says stalled, since when nothing came, and when it closes", () => {
    const t = fieldPeriodText({ surveyStatusId: 50, fieldEndAt: END, stalledAt: "2026-12-02T08:00:00.000Z" }, "UTC");
    expect(t.label).toBe("Stalled");
    expect(t.tone).toBe("amber");
    expect(t.detail).toBe("No complete for 24 hours (since 1 Dec 2026, 08:00 UTC). Closes at 9 Dec 2026, 14:30 UTC with the completes it has; the shortfall is refunded.");
  });

  test("stalledAt on a closed run is history: it says why it closed", () => {
    expect(fieldPeriodText({ surveyStatusId: 90, fieldEndAt: END, stalledAt: "2026-12-02T08:00:00.000Z", closedReason: "field end" }, "UTC").label).toBe("Closed at its field end");
    expect(fieldPeriodText({ surveyStatusId: 90, fieldEndAt: END, stalledAt: null, closedReason: "quota" }, "UTC")).toEqual({ label: "Closed: quota met", detail: null, tone: "green" });
    expect(fieldPeriodText({ surveyStatusId: 90, fieldEndAt: END, stalledAt: null, closedReason: "staff" }, "UTC").label).toBe("Closed by staff");
  });

  test("a run not launched yet has no field end", () => {
    expect(fieldPeriodText({ surveyStatusId: 0, fieldEndAt: null, stalledAt: null }, "UTC").label).toBe("Not open yet");
  });
});
