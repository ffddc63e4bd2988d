// A group question's themes (web/src/features/results/groupThemes.ts): two projects' ThemeResults
// added up theme by theme by name; shares of all the projects' answers. Expected values counted by hand.
import { expect, test } from "bun:test";
import { mergeThemes } from "../../web/src/features/results/groupThemes";
import type { ThemeResults } from "../../web/src/features/results/queries";

const s = (Positive: number, Neutral: number, Mixed: number, Negative: number) => ({ Positive, Neutral, Mixed, Negative, None: 0 });
const theme = (id: number, name: string, count: number, sentiments: ReturnType<typeof s>) => ({ id, name, sentiment: null, count, share: 0, bySentiment: sentiments, byTestOption: [] });

test("themes of the same name add up across projects; shares are of every project's answers", () => {
  const a: ThemeResults = {
    projectId: 1,
    projectQuestionId: 11,
    answers: 30,
    bySentiment: s(10, 10, 5, 5),
    testOptions: [],
    themes: [theme(1, "Taste", 12, s(8, 2, 1, 1)), theme(2, "Price", 6, s(0, 1, 1, 4))],
  };
  const b: ThemeResults = {
    projectId: 2,
    projectQuestionId: 21,
    answers: 20,
    bySentiment: s(4, 6, 2, 8),
    testOptions: [],
    themes: [theme(7, "Price", 9, s(1, 0, 0, 8)), theme(8, "Packaging", 3, s(2, 1, 0, 0))],
  };
  const m = mergeThemes([a, b]);
  expect(m.answers).toBe(50);
  expect(m.bySentiment).toEqual({ Positive: 14, Neutral: 16, Mixed: 7, Negative: 13 });
  expect(m.themes.map((t) => [t.name, t.count, t.share])).toEqual([
    ["Price", 15, 0.3],
    ["Taste", 12, 0.24],
    ["Packaging", 3, 0.06],
  ]);
  expect(m.themes[0]!.bySentiment).toEqual({ Positive: 1, Neutral: 1, Mixed: 1, Negative: 12 });
  expect(m.themes[0]!.byProject).toEqual([
    { projectId: 1, count: 6 },
    { projectId: 2, count: 9 },
  ]);
});

test("no answers: shares are 0, not NaN", () => {
  const empty: ThemeResults = { projectId: 1, projectQuestionId: 11, answers: 0, bySentiment: s(0, 0, 0, 0), testOptions: [], themes: [theme(1, "Taste", 0, s(0, 0, 0, 0))] };
  expect(mergeThemes([empty]).themes[0]!.share).toBe(0);
  expect(mergeThemes([])).toEqual({ answers: 0, bySentiment: { Positive: 0, Neutral: 0, Mixed: 0, Negative: 0 }, themes: [] });
});
