// A project file's names resolved against the API's reference data (lookups.ts), and every check
// the server makes on the calls the file becomes, made here first so a mistake is reported at its
// FILE:LINE:COL before anything exists: POST Projects (framework fits the type, category,
// industry, markets), ChangeTargets (options and their markets, a target's market among the
// project's), Questions (options, choice limits), CreatePriceSensitivities (one currency),
// CreateMarketReach (combination size and depth). The server's rules are in
// api/src/domains/projects/{projects,questions,setup}.service.ts.
import type { Schemas } from "@ideally/contracts";
import { PROJECT_TYPES as TYPE_NAMES } from "@ideally/contracts/labels";
import { findMarket, industries, same, type Category, type Framework, type Market, type TargetOption } from "../../lookups.ts";
import { FRAMEWORKS, type ProjectFile, type ProjectPlan } from "./file.ts";

export interface Reference {
  markets: Market[];
  options: TargetOption[];
  categories: Category[];
  frameworks: Framework[];
}

export interface Resolved {
  project: Schemas["CreateProject"];
  targets: Schemas["ChangeTargets"]["targets"];
  crossedQuotas: NonNullable<Schemas["ChangeTargets"]["crossedQuotas"]>;
  markets: Market[];
  framework: Framework;
  /** CreditCostEstimate's body: what the draft would cost, priced without creating it. */
  estimate: Schemas["CreditCostEstimateBody"];
}

const MAX_OPTIONS = 100;
const CHOICE_TYPES = [1, 2, 4];
const optionName = (o: TargetOption) => `${o.question}: ${o.label}`;

export function resolvePlan(f: ProjectFile, plan: ProjectPlan, ref: Reference): Resolved {
  const typeId = plan.project.projectTypeId;

  // framework: an id, a name of FRAMEWORKS, or a framework's title; it must fit the type.
  const fwId = typeof plan.framework === "number" ? plan.framework : (FRAMEWORKS[plan.framework] ?? ref.frameworks.find((x) => same(x.title, String(plan.framework)))?.id);
  const framework = ref.frameworks.find((x) => x.id === fwId);
  const fitting = ref.frameworks.filter((x) => x.projectTypeId === typeId);
  const choices = fitting.map((x) => `${Object.keys(FRAMEWORKS).find((k) => FRAMEWORKS[k] === x.id) ?? x.title} (${x.id})`).join(", ");
  if (!framework) f.fail(["framework"], `no framework '${plan.framework}'; for a${typeId === 1 ? "n" : ""} ${TYPE_NAMES[typeId]} project: ${choices}`);
  if (framework.projectTypeId !== typeId) f.fail(["framework"], `framework ${framework.id} (${framework.title}) is not for ${TYPE_NAMES[typeId]} projects; use one of ${choices}`);

  // category: an id or a name.
  let categoryId: number | undefined;
  if (plan.category !== undefined) {
    const want = plan.category;
    const hits = typeof want === "number" ? ref.categories.filter((c) => c.id === want) : ref.categories.filter((c) => same(c.name, want));
    if (hits.length === 0) f.fail(["category"], `no category '${want}' (see \`ideally categories\`)`);
    if (hits.length > 1) f.fail(["category"], `'${want}' names categories ${hits.map((c) => c.id).join(", ")}: give the id`);
    categoryId = hits[0].id;
  }

  // productType: an industry code or name.
  let productType: string | undefined;
  if (plan.productType !== undefined) {
    const want = plan.productType;
    const hit = industries().find((i) => same(i.code, want) || same(i.name, want));
    if (!hit)
      f.fail(
        ["productType"],
        `'${want}' is not an industry: one of ${industries()
          .map((i) => i.code)
          .join(", ")}`,
      );
    productType = hit.code;
  }

  // regions: names, codes or ids.
  const markets = plan.regions.map((r, i) => {
    const m = findMarket(ref.markets, r);
    if (!m) f.fail(["regions", i], `no market '${r}' (see \`ideally markets\`)`);
    return m;
  });
  const regionIds = [...new Set(markets.map((m) => m.id))];
  const fielded = (id: number) => regionIds.includes(id);
  const marketName = (id: number) => ref.markets.find((m) => m.id === id)?.name ?? String(id);
  const projectMarkets = regionIds.map(marketName).join(", ");

  // targets: a market among the project's, an option that exists there.
  const seen = new Set<string>();
  const targets = plan.targets.map((t, i) => {
    let regionId: number | null = null;
    if (t.region !== undefined) {
      const m = findMarket(ref.markets, t.region);
      if (!m) f.fail(["targets", i, "region"], `no market '${t.region}' (see \`ideally markets\`)`);
      if (!fielded(m.id)) f.fail(["targets", i, "region"], `${m.name} is not one of the project's regions (${projectMarkets})`);
      regionId = m.id;
    }
    const where = regionId !== null ? marketName(regionId) : projectMarkets;
    let option: TargetOption | undefined;
    if (typeof t.option === "number") {
      option = ref.options.find((o) => o.id === t.option);
      if (!option) f.fail(["targets", i, "option"], `no target option ${t.option} (see \`ideally targets --market ${ref.markets.find((m) => m.id === (regionId ?? regionIds[0]))?.code ?? ""}\`)`);
    } else {
      const text = t.option;
      const colon = text.indexOf(":");
      const byLabel = (o: TargetOption) => same(o.label, text) || (colon > 0 && same(o.question, text.slice(0, colon)) && same(o.label, text.slice(colon + 1)));
      const usable = (o: TargetOption) => o.marketId === null || (regionId !== null ? o.marketId === regionId : fielded(o.marketId));
      const hits = ref.options.filter((o) => byLabel(o) && usable(o));
      if (hits.length === 0)
        f.fail(["targets", i, "option"], `no target option '${text}' in ${where} (see \`ideally targets --market ${ref.markets.find((m) => m.id === (regionId ?? regionIds[0]))?.code ?? ""}\`)`);
      if (hits.length > 1)
        f.fail(
          ["targets", i, "option"],
          `'${text}' could be ${hits.map((o) => `'${optionName(o)}'${o.marketId !== null ? ` in ${marketName(o.marketId)}` : ""} (${o.id})`).join(" or ")}: write 'Question: answer', give the region, or the id`,
        );
      option = hits[0];
    }
    if (option.marketId !== null && !fielded(option.marketId)) {
      f.fail(["targets", i, "option"], `option ${option.id} (${optionName(option)}) belongs to ${marketName(option.marketId)}, which the project does not field in`);
    }
    if (option.marketId !== null && regionId !== null && option.marketId !== regionId) {
      f.fail(["targets", i, "region"], `option ${option.id} (${optionName(option)}) belongs to ${marketName(option.marketId)}, not ${marketName(regionId)}`);
    }
    const effective = regionId ?? option.marketId;
    const key = `${option.id}:${effective}`;
    if (seen.has(key)) f.fail(["targets", i], "the same target twice");
    seen.add(key);
    return { systemQuestionOptionId: option.id, regionId, ...(t.quota !== undefined ? { quotaPercent: t.quota } : {}), ...(t.onlyThese ? { onlyThese: true } : {}) };
  });

  // crossed quota cells: a market among the project's, two answers usable there (the API checks the rest).
  const crossedQuotas = plan.crossedQuotas.map((c, i) => {
    const m = findMarket(ref.markets, c.region);
    if (!m) f.fail(["crossedQuotas", i, "region"], `no market '${c.region}' (see \`ideally markets\`)`);
    if (!fielded(m.id)) f.fail(["crossedQuotas", i, "region"], `${m.name} is not one of the project's regions (${projectMarkets})`);
    const ids = c.cell.map((x, j) => {
      const colon = typeof x === "string" ? x.indexOf(":") : -1;
      const hits = ref.options.filter(
        (o) =>
          (o.marketId === null || o.marketId === m.id) &&
          (typeof x === "number" ? o.id === x : same(o.label, x) || (colon > 0 && same(o.question, x.slice(0, colon)) && same(o.label, x.slice(colon + 1)))),
      );
      if (hits.length !== 1) {
        f.fail(
          ["crossedQuotas", i, "cell", j],
          hits.length
            ? `'${x}' could be ${hits.map((o) => `'${optionName(o)}' (${o.id})`).join(" or ")}: write 'Question: answer' or the id`
            : `no target option ${typeof x === "number" ? x : `'${x}'`} in ${m.name} (see \`ideally targets --market ${m.code}\`)`,
        );
      }
      return hits[0]!.id;
    });
    return { regionId: m.id, systemQuestionOptionIds: [ids[0]!, ids[1]!] as [number, number], quotaPercent: c.quota };
  });

  // questions: what the question service checks of options and choice limits.
  plan.questions.forEach((q, i) => {
    const opts = q.body.questionOptions ?? [];
    const qt = q.body.questionTypeId;
    if (CHOICE_TYPES.includes(qt) && opts.length < 2) f.fail(["questions", i, opts.length ? "options" : "type"], "a single, multiple or dropdown question needs at least two options");
    if (opts.length > MAX_OPTIONS) f.fail(["questions", i, "options"], `at most ${MAX_OPTIONS} options`);
    const texts = new Set<string>();
    opts.forEach((o, j) => {
      const k = o.optionText.trim().toLowerCase();
      if (texts.has(k)) f.fail(["questions", i, "options", j], `'${o.optionText}' appears twice`);
      texts.add(k);
      if (o.exclusive && qt !== 2) f.fail(["questions", i, "options", j], "only options of a multiple question are exclusive");
    });
    const { minChoices, maxChoices } = q.body;
    if (qt !== 2 && (minChoices != null || maxChoices != null)) f.fail(["questions", i, maxChoices != null ? "maxChoices" : "minChoices"], "choice limits apply to multiple questions");
    if (maxChoices != null && maxChoices > opts.length) f.fail(["questions", i, "maxChoices"], `more than the number of options (${opts.length})`);
    if (minChoices != null && maxChoices != null && minChoices > maxChoices) f.fail(["questions", i, "minChoices"], "greater than maxChoices");
  });

  // price sensitivity: Idea and Message projects, regions of one currency.
  const ps = plan.priceSensitivity;
  if (ps) {
    if (typeId !== 1 && typeId !== 2) f.fail(["priceSensitivity"], "price sensitivity is for Idea and Message projects");
    const currencies = [...new Set(markets.map((m) => m.currency))].sort();
    if (currencies.length > 1) {
      f.fail(
        ps.currencyCode !== undefined ? ["priceSensitivity", "currency"] : ["priceSensitivity"],
        `the project's regions use ${currencies.join(" and ")}: price questions need regions with one currency`,
      );
    }
    if (ps.currencyCode !== undefined && ps.currencyCode !== currencies[0]) f.fail(["priceSensitivity", "currency"], `the project's regions use ${currencies[0]}`);
    if (ps.minPrice != null && ps.maxPrice != null && ps.minPrice >= ps.maxPrice) f.fail(["priceSensitivity", "minPrice"], "must be below maxPrice");
  }

  // market reach: at most as many items per combination as test options, depth within it.
  const mr = plan.marketReach;
  if (mr) {
    const n = plan.testOptions.length;
    const size = mr.maxCombinationSize ?? Math.min(3, Math.max(n, 1));
    if (size > n) f.fail(["marketReach", "maxCombinationSize"], `at most the number of test options (${n})`);
    if ((mr.reachDepth ?? 1) > size) f.fail(["marketReach", "reachDepth"], `at most maxCombinationSize (${size})`);
  }

  return {
    project: {
      ...plan.project,
      regionIds,
      frameworkId: framework.id,
      ...(categoryId !== undefined ? { categoryId } : {}),
      ...(productType !== undefined ? { productType } : {}),
    },
    targets,
    crossedQuotas,
    markets: regionIds.map((id) => ref.markets.find((m) => m.id === id)!),
    framework,
    estimate: {
      regionIds,
      ...(plan.project.sampleSize !== undefined ? { sampleSize: plan.project.sampleSize } : {}),
      frameworkId: framework.id,
      testOptions: plan.testOptions.length,
      priceSensitivity: ps !== undefined,
      marketReach: mr !== undefined,
      customQuestions: plan.questions.length,
    },
  };
}
