// The tools a model may call in a results chat: each runs a results function on the chat's project
// with a response filter (the thread's own filter, narrowed by the tool's arguments) and answers
// figures with references (facts.ts), which the answer cites and the message stores.
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { qualResults } from "../results/results.service.ts";
import type { ResponseFilter } from "../results/filters.ts";
import { measureFacts, priceFacts, reachFacts, themeFacts, whyFacts, type FigureBook, type ProjectContext } from "./facts.ts";
import type { Tool } from "./provider.ts";

/** A figure as a tool hands it to the model: its reference and its text. */
export interface ToolFigure {
  ref: string;
  text: string;
}

interface Base {
  /** The labels of the audience the figures are for (demographic options, markets). */
  audience: string[];
  /** The audience in words: "Female respondents aged 18-24 or 25-34 in Australia"; "all respondents" without a filter. */
  audienceText: string;
  filters: ResponseFilter;
}
export type ToolOutput =
  | (Base & {
      tool: "qual_results";
      measure: {
        standardQuestionId: number;
        title: string;
        options: { name: string; top2: ToolFigure; n: ToolFigure; smallBase: boolean }[];
        lead: { diff: ToolFigure; significant: boolean; lowBase?: boolean } | null;
      } | null;
    })
  | (Base & { tool: "price_sensitivity"; price: { name: string; opp: ToolFigure | null; ipp: ToolFigure | null; pmc: ToolFigure | null; pme: ToolFigure | null }[] })
  | (Base & { tool: "market_reach"; reach: { items: string[]; reach: ToolFigure } | null })
  | (Base & { tool: "verbatim_themes"; themes: { question: string; name: string; share: ToolFigure; quote: string | null }[] })
  | (Base & {
      tool: "why_answers";
      testOption: string;
      stance: "like" | "dislike" | null;
      questions: {
        question: string;
        answers: number;
        themes: { name: string; share: ToolFigure; quote: { text: ToolFigure; segment: string } | null }[];
        quotes: { text: ToolFigure; segment: string }[];
      }[];
      drivers: { outcome: string; filtered: boolean; note: string | null; top: { title: string; importance: ToolFigure }[] } | null;
    });

const fig = (f: { ref: string; text: string } | null) => (f ? { ref: f.ref, text: f.text } : null);
const ints = { type: "array", items: { type: "integer" } };
const FILTER_PARAMS = {
  filterIds: { ...ints, description: "Demographic options (system question option ids from the context) the respondents must have: OR within a question, AND across questions" },
  regionIds: { ...ints, description: "Markets (region ids from the context)" },
};

/** The thread's filter narrowed by a tool's arguments (ids outside the project's context are refused). */
function narrow(pc: ProjectContext, base: ResponseFilter, args: Record<string, unknown>): { filters: ResponseFilter; audience: string[]; audienceText: string } {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x)) : []);
  const known = new Map(pc.demographics.flatMap((d) => d.options.map((o) => [o.id, o.label] as const)));
  const filterIds = list(args.filterIds);
  const bad = filterIds.filter((id) => !known.has(id));
  if (bad.length) throw new Error(`Unknown demographic option ids ${bad.join(", ")}: use ids from the context`);
  const regionIds = list(args.regionIds).filter((id) => pc.regions.some((r) => r.id === id));
  const testOptionIds = list(args.testOptionIds).filter((id) => pc.testOptions.some((o) => o.id === id));
  const filters: ResponseFilter = { ...base };
  if (filterIds.length) filters.filterIds = [...new Set([...(base.filterIds ?? []), ...filterIds])];
  if (regionIds.length) filters.regionIds = regionIds;
  if (testOptionIds.length) filters.testOptionIds = testOptionIds;
  const audience = [...filterIds.map((id) => known.get(id)!), ...regionIds.map((id) => pc.regions.find((r) => r.id === id)!.name)];
  return { filters, audience, audienceText: describeAudience(pc, filterIds, regionIds) };
}

/** "Female respondents aged 18-24 or 25-34 (Auckland) in Australia". */
export function describeAudience(pc: ProjectContext, filterIds: number[], regionIds: number[]): string {
  const of = (sq: number) => pc.demographics.filter((d) => d.systemQuestionId === sq).flatMap((d) => d.options.filter((o) => filterIds.includes(o.id)).map((o) => o.label));
  const gender = of(45);
  const age = of(51);
  const other = pc.demographics.filter((d) => d.systemQuestionId !== 45 && d.systemQuestionId !== 51).flatMap((d) => d.options.filter((o) => filterIds.includes(o.id)).map((o) => o.label));
  const markets = pc.regions.filter((r) => regionIds.includes(r.id)).map((r) => r.name);
  if (!gender.length && !age.length && !other.length && !markets.length) return "all respondents";
  return [
    `${gender.length ? `${gender.join(" or ")} ` : ""}respondents`,
    age.length ? ` aged ${age.join(" or ")}` : "",
    other.length ? ` (${other.join(", ")})` : "",
    markets.length ? ` in ${markets.join(" or ")}` : "",
  ].join("");
}

/** `total`: the thread's (QualResults total): markets, the all-markets total the web app's All markets shows; sample, every respondent at their own weight. */
export function resultsTools(db: Db, ctx: RequestCtx, pc: ProjectContext, book: FigureBook, base: ResponseFilter, total: "sample" | "markets" = "sample"): Record<string, Tool> {
  const names = new Map<number | null, string>(pc.testOptions.map((o) => [o.id, o.name]));
  return {
    qual_results: {
      spec: {
        name: "qual_results",
        description:
          "Weighted top-2-box of one measure per test option for an audience (QualResults), best first, with each option's base and the leader's margin over the runner-up and whether it is significant.",
        parameters: {
          type: "object",
          properties: {
            standardQuestionId: { type: ["integer", "null"], description: "The measure (standard question id from the context); null for the headline measure" },
            ...FILTER_PARAMS,
            testOptionIds: { ...ints, description: "Only these test options" },
          },
        },
      },
      async run(args) {
        const { filters, audience, audienceText } = narrow(pc, base, args);
        const sq =
          Number.isInteger(args.standardQuestionId) && pc.measures.some((m) => m.standardQuestionId === args.standardQuestionId)
            ? (args.standardQuestionId as number)
            : (pc.measures[0]?.standardQuestionId ?? null);
        if (sq === null) return { tool: "qual_results", audience, audienceText, filters, measure: null } satisfies ToolOutput;
        const q = await qualResults(db, ctx, { projectId: pc.projectId, filters, standardQuestionIds: [sq], total });
        const title = pc.measures.find((m) => m.standardQuestionId === sq)!.title;
        const [m] = measureFacts(book, q.measures.length ? q.measures : [{ standardQuestionId: sq, title, results: [] }], names, { filters, benchmarkTypeId: null, total });
        return {
          tool: "qual_results",
          audience,
          audienceText,
          filters,
          measure: {
            standardQuestionId: sq,
            title: m!.title,
            options: m!.options.map((o) => ({ name: o.name, top2: fig(o.top2)!, n: fig(o.n)!, smallBase: o.smallBase })),
            lead: m!.lead ? { diff: fig(m!.lead.diff)!, significant: m!.lead.significant, lowBase: m!.lead.lowBase } : null,
          },
        } satisfies ToolOutput;
      },
    },
    price_sensitivity: {
      spec: {
        name: "price_sensitivity",
        description: "Van Westendorp price points per test option (optimal, indifference, acceptable range) for an audience.",
        parameters: { type: "object", properties: FILTER_PARAMS },
      },
      async run(args) {
        const { filters, audience, audienceText } = narrow(pc, base, args);
        const price = pc.frameworkId === 1010 ? await priceFacts(db, ctx, pc, book, filters) : [];
        return {
          tool: "price_sensitivity",
          audience,
          audienceText,
          filters,
          price: price.map((p) => ({ name: p.name, opp: fig(p.opp), ipp: fig(p.ipp), pmc: fig(p.pmc), pme: fig(p.pme) })),
        } satisfies ToolOutput;
      },
    },
    market_reach: {
      spec: { name: "market_reach", description: "The best combination of items by unduplicated reach (TURF) for an audience.", parameters: { type: "object", properties: FILTER_PARAMS } },
      async run(args) {
        const { filters, audience, audienceText } = narrow(pc, base, args);
        const r = await reachFacts(db, ctx, pc, book, filters);
        return { tool: "market_reach", audience, audienceText, filters, reach: r ? { items: r.items, reach: fig(r.reach)! } : null } satisfies ToolOutput;
      },
    },
    why_answers: {
      spec: {
        name: "why_answers",
        description:
          "Why an audience likes or dislikes one test option, or what it says about it: per open question about the option, the top themes of its positive (like), negative (dislike) or all answers with their share and a quoted answer with the respondent's segment (gender, age group, market), and the measures that drive purchase intent for it.",
        parameters: {
          type: "object",
          properties: {
            testOptionId: { type: "integer", description: "The test option (id from the context)" },
            stance: { type: ["string", "null"], enum: ["like", "dislike", null], description: "like: what people like; dislike: what they dislike; null: everything they say" },
            ...FILTER_PARAMS,
          },
          required: ["testOptionId"],
        },
      },
      async run(args) {
        const id = args.testOptionId;
        if (!Number.isInteger(id) || !pc.testOptions.some((o) => o.id === id)) throw new Error(`Unknown test option ${String(id)}: use an id from the context`);
        const { filters, audience, audienceText } = narrow(pc, base, { ...args, testOptionIds: [] });
        const stance = args.stance === "like" || args.stance === "dislike" ? args.stance : null;
        const w = await whyFacts(db, ctx, pc, book, filters, id as number, stance);
        const q = (x: { text: { ref: string; text: string }; segment: string }) => ({ text: fig(x.text)!, segment: x.segment });
        return {
          tool: "why_answers",
          audience,
          audienceText,
          filters,
          testOption: w.testOption,
          stance,
          questions: w.questions.map((x) => ({
            question: x.question,
            answers: x.answers,
            themes: x.themes.map((t) => ({ name: t.name, share: fig(t.share)!, quote: t.quote ? q(t.quote) : null })),
            quotes: x.quotes.map(q),
          })),
          drivers: w.drivers
            ? { outcome: w.drivers.outcome, filtered: w.drivers.filtered, note: w.drivers.note, top: w.drivers.top.map((t) => ({ title: t.title, importance: fig(t.importance)! })) }
            : null,
        } satisfies ToolOutput;
      },
    },
    verbatim_themes: {
      spec: {
        name: "verbatim_themes",
        description: "The top themes of the open answers, with their share of answers and a quote, for an audience.",
        parameters: { type: "object", properties: FILTER_PARAMS },
      },
      async run(args) {
        const { filters, audience, audienceText } = narrow(pc, base, args);
        const t = await themeFacts(db, ctx, pc, book, filters);
        return { tool: "verbatim_themes", audience, audienceText, filters, themes: t.map((x) => ({ question: x.question, name: x.name, share: fig(x.share)!, quote: x.quote })) } satisfies ToolOutput;
      },
    },
  };
}
