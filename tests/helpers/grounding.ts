// Checks an AI text against the results functions: every figure it cites ("62.3% [F4]") is
// recomputed from the results function its source names and must equal the figure, be written as
// the figure's text, and no other number may appear in the text (once names, labels and quotes,
// which the data itself supplies, are taken out).
import { expect } from "bun:test";
import type { Db } from "../../api/src/db/client.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import type { Figure } from "../../api/src/domains/ai/facts.ts";
import { qualResults, questionResults } from "../../api/src/domains/results/results.service.ts";
import { marketReachResults, priceSensitivityResults } from "../../api/src/domains/results/analysis.service.ts";
import { verbatim, verbatimCount } from "../../api/src/domains/results/verbatims.service.ts";
import { driverResults } from "../../api/src/domains/results/drivers.service.ts";
import { resolveFilter, sessionsSql, type ResponseFilter } from "../../api/src/domains/results/filters.ts";
import { enterTenant } from "../../api/src/access/policy.ts";

/** The figure's value, recomputed by the results function its source names. */
export async function recompute(db: Db, ctx: RequestCtx, projectId: number, f: Figure, all: Figure[]): Promise<number> {
  const s = f.source;
  switch (s.fn) {
    case "QualResults": {
      // The figure's own total (absent: the sample total, QualResults' default).
      const q = await qualResults(db, ctx, { projectId, filters: s.filters, benchmarkTypeId: s.benchmarkTypeId, total: s.total ?? "sample" });
      const r = q.measures.find((m) => m.standardQuestionId === s.standardQuestionId)?.results.find((x) => x.testOptionId === s.testOptionId);
      if (!r) throw new Error(`${f.ref}: no result for measure ${s.standardQuestionId}, option ${s.testOptionId}`);
      if (s.field === "top2") return r.top2;
      if (s.field === "n") return r.n;
      if (s.field === "vsBenchmark.diff") return r.vsBenchmark!.diff;
      if (s.field === "vsBenchmark.top2Percentage") return r.vsBenchmark!.top2Percentage;
      return r.vsOthers.find((o) => o.testOptionId === s.otherTestOptionId)!.diff;
    }
    case "Difference": {
      const a = all.find((x) => x.ref === s.a)!;
      const b = all.find((x) => x.ref === s.b)!;
      return (await recompute(db, ctx, projectId, a, all)) - (await recompute(db, ctx, projectId, b, all));
    }
    case "PriceSensitivityResults": {
      const r = (await priceSensitivityResults(db, ctx, projectId, s.filters)).value.find((x) => x.testOptionId === s.testOptionId)!;
      return r[s.field]!;
    }
    case "MarketReachResults":
      return (await marketReachResults(db, ctx, projectId, s.filters, { top: 1 })).byK.find((k) => k.k === s.k)!.sets[0]!.reach;
    case "QuestionResults": {
      const r = await questionResults(db, ctx, { projectId, projectQuestionId: s.projectQuestionId, filters: s.filters, total: s.total ?? "sample" });
      return r.results.find((x) => x.testOptionId === s.testOptionId)!.options.find((o) => o.questionOptionId === s.questionOptionId)!.share;
    }
    case "VerbatimCount": {
      const of = { projectId, projectQuestionId: s.projectQuestionId, filters: s.filters, testOptionId: s.testOptionId ?? null, sentiment: s.sentiment ?? null };
      const n = (await verbatimCount(db, ctx, { ...of, themeId: s.themeId })).count;
      const total = (await verbatimCount(db, ctx, of)).count;
      return n / total;
    }
    case "Verbatim": {
      // The quoted answer is one of the answers Verbatim lists under the figure's arguments, and its text is the quote.
      const page = await verbatim(db, ctx, {
        projectId,
        projectQuestionId: s.projectQuestionId,
        filters: s.filters,
        testOptionId: s.testOptionId,
        themeId: s.themeId,
        sentiment: s.sentiment,
        pageSize: 200,
      });
      const a = page.value.find((x) => x.id === s.answerId);
      if (!a) throw new Error(`${f.ref}: answer ${s.answerId} is not among the answers its source lists`);
      expect(f.text, `${f.ref} quotes answer ${s.answerId}`).toBe(`“${(a.translatedText ?? a.responseText).replace(/\s+/g, " ").trim().slice(0, 200)}”`);
      return a.id;
    }
    case "SimulatedRespondents":
      // Counted again here, apart from the code under test (results/simulated.ts): the filter's
      // valid completes and the simulated panel's among them, through the filter's own sessions.
      return recountSimulated(db, ctx, projectId, s.filters, s.field);
    case "DriverResults": {
      const d = await driverResults(db, ctx, projectId, s.filters);
      const i = d.groups.find((g) => g.testOptionId === s.testOptionId)?.drivers.find((x) => x.standardQuestionId === s.standardQuestionId)?.importance;
      if (i === null || i === undefined) throw new Error(`${f.ref}: no importance for measure ${s.standardQuestionId}`);
      return i;
    }
  }
}

async function recountSimulated(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter, field: "respondents" | "simulated"): Promise<number> {
  return enterTenant(db, ctx, async (tx) => {
    const f = await resolveFilter(tx, filters);
    const [r] = await tx<{ n: number; simulated: number }[]>`
      select count(*)::int as n, count(*) filter (where s.is_simulated)::int as simulated
      from (${sessionsSql(tx, projectId, f)}) p join survey_sessions s on s.id = p.sid`;
    return field === "respondents" ? r!.n : r!.simulated;
  });
}

/** How a figure of this source must be written, from the recomputed value. */
export function written(f: Figure, v: number): string {
  const s = f.source;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  if (s.fn === "QualResults") {
    if (s.field === "top2") return pct(v);
    if (s.field === "n") return `n=${v}`;
    if (s.field === "vsBenchmark.top2Percentage") return `${v.toFixed(1)}%`;
    return `${(Math.abs(v) * 100).toFixed(1)} points`;
  }
  if (s.fn === "Difference") return `${(Math.abs(v) * 100).toFixed(1)} points`;
  if (s.fn === "PriceSensitivityResults") return v.toFixed(2); // after the currency symbol
  if (s.fn === "Verbatim") return f.text; // the quote, checked against the answer in recompute
  if (s.fn === "SimulatedRespondents") return v.toLocaleString("en");
  return pct(v);
}

/**
 * Checks the text: returns how many figures it cites. `labels` are the names the data supplies
 * (project, test options, measures, demographic labels, questions, segments, objective).
 */
export async function expectGrounded(db: Db, ctx: RequestCtx, projectId: number, text: string, figures: Figure[], labels: string[]): Promise<number> {
  const markers = [...text.matchAll(/\[(F\d+)\]/g)];
  for (const m of markers) {
    const f = figures.find((x) => x.ref === m[1]);
    expect(f, `${m[1]} is among the figures stored with the text`).toBeDefined();
    const before = text.slice(0, m.index);
    expect(before.endsWith(`${f!.text} `), `${m[1]} follows its figure's text "${f!.text}"`).toBe(true);
    const v = await recompute(db, ctx, projectId, f!, figures);
    expect(Math.abs(v - f!.value), `${m[1]} (${f!.text}) equals what ${f!.source.fn} answers (${v})`).toBeLessThan(1e-9);
    expect(f!.text.endsWith(written(f!, v)), `${m[1]} is written "${written(f!, v)}"`).toBe(true);
  }
  let rest = text;
  for (const f of figures) rest = rest.split(`${f.text} [${f.ref}]`).join(" ");
  rest = rest.replace(/“[^”]*”/g, " ").replace(/"[^"]*"/g, " ");
  for (const l of [...labels].sort((a, b) => b.length - a.length)) if (l) rest = rest.split(l).join(" ");
  rest = rest.replace(/top-2-box/g, " ");
  expect(rest.match(/.{0,30}\d.{0,30}/)?.[0] ?? null, "no number in the text other than cited figures and names").toBeNull();
  return markers.length;
}
