// A group question's themes: each project codes its own copy of the open question, so the group
// view adds the projects' ThemeResults (each for the same filtered respondents) theme by theme,
// matched by the theme's name. Pure, so the page and its tests share it.
import type { ThemeResults } from "./queries";

export const SENTIMENTS = ["Positive", "Neutral", "Mixed", "Negative"] as const;
type Sentiment = (typeof SENTIMENTS)[number];

export interface GroupTheme {
  name: string;
  count: number;
  /** count / all the projects' answers (unweighted, as ThemeResults shares are) */
  share: number;
  bySentiment: Record<Sentiment, number>;
  /** The theme's count in each project that coded it */
  byProject: { projectId: number; count: number }[];
}

export interface GroupThemes {
  answers: number;
  bySentiment: Record<Sentiment, number>;
  themes: GroupTheme[];
}

const zero = (): Record<Sentiment, number> => ({ Positive: 0, Neutral: 0, Mixed: 0, Negative: 0 });

export function mergeThemes(results: readonly ThemeResults[]): GroupThemes {
  const answers = results.reduce((n, r) => n + r.answers, 0);
  const bySentiment = zero();
  for (const r of results) for (const s of SENTIMENTS) bySentiment[s] += r.bySentiment[s];
  const byName = new Map<string, GroupTheme>();
  for (const r of results) {
    for (const t of r.themes) {
      const g = byName.get(t.name) ?? { name: t.name, count: 0, share: 0, bySentiment: zero(), byProject: [] };
      g.count += t.count;
      for (const s of SENTIMENTS) g.bySentiment[s] += t.bySentiment[s];
      g.byProject.push({ projectId: r.projectId, count: t.count });
      byName.set(t.name, g);
    }
  }
  const themes = [...byName.values()].map((t) => ({ ...t, share: answers > 0 ? t.count / answers : 0 })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return { answers, bySentiment, themes };
}
