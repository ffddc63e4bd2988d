// A run's targets and quotas as a Samplify line item's `quotaPlan` (decision record 0127; the shapes
// in api/src/samplify/client.ts). Built from the run's survey definition, so Dynata is asked for
// exactly what the survey's engine enforces: the same target groups, the same caps per answer
// (DefTarget.quotas, quotas.ts cellCap of the run's completes) and the same share left to a
// group's other answers (othersQuota).
//
// Dynata's attributes, from its public reference (GET /attributes/{country}/{language}; the example
// answer in Dynata's python-demandapi-client tests/test_files/get_attributes.json): "11" Gender, a
// LIST with options "1" Male and "2" Female; "13" Age, an INTEGER_RANGE whose options are ranges
// "lo-hi" (format ^(1[8]-1[9]|1[89]-[2-9][0-9]|[2-9][0-9]-[2-9][0-9])$). The reference names no
// attribute for the other demographics (region, household, alcohol, ethnicity, income, technology
// adoption), for "Another gender", or for a project's own screener questions: those are not sent,
// and each is named in a warning (the survey still screens and caps on them; the incidence sent
// covers them). Crossed cells (two demographics interlocked, def.crossed) go as one quota group of
// nested cells, each cell's two quota nodes the reference's QuotaCell takes (quotaNodes is a list),
// at the cell's cap; a crossing with a question Dynata has no attribute for (region, say) is named
// in a warning, as is a cell with an answer Dynata has no option for (decision record 0136).
import type { QuotaCell, QuotaFilter, QuotaPlan } from "../../samplify/client.ts";
import type { DefCrossing, DefQuestion, DefTarget, SurveyDefinition } from "./engine.ts";

/** Dynata's attribute and option for each of our demographic answers that has one. */
const ATTRIBUTES: Record<number, { attributeId: string; options: Record<number, string> }> = {
  // Gender
  45: { attributeId: "11", options: { 4500001: "1", 4500002: "2" } },
  // Age group: the same bands as ranges; "65+" as 65-99 (the format takes two digits each side).
  51: { attributeId: "13", options: { 5100001: "18-24", 5100002: "25-34", 5100003: "35-44", 5100004: "45-54", 5100005: "55-64", 5100006: "65-99" } },
};

export interface SamplifyPlan {
  quotaPlan: QuotaPlan;
  /** What could not be sent, named (never dropped silently). */
  warnings: string[];
}

const quoted = (labels: string[]) => labels.map((l) => `"${l}"`).join(", ");

/** The line item's filters and quota groups for the run's definition and its completes. */
export function samplifyPlan(def: SurveyDefinition, completes: number): SamplifyPlan {
  const plan: QuotaPlan = { filters: [], quotaGroups: [] };
  const warnings: string[] = [];
  for (const t of def.targets) {
    const q = [...def.demographics, ...def.screener].find((x) => x.key === t.key);
    if (!q) continue;
    const name = q.title || q.text;
    const attr = q.systemQuestionId !== null ? ATTRIBUTES[q.systemQuestionId] : undefined;
    if (!attr) {
      const kind = q.systemQuestionId !== null ? "Dynata's reference names no attribute for it" : "a project's own question has no Dynata attribute";
      warnings.push(`"${name}" (${quoted(labelsOf(q, t.optionIds))}) is not sent to Samplify: ${kind}; the survey screens${Object.keys(t.quotas).length ? " and caps" : ""} on it`);
      continue;
    }
    const map = (ids: number[]) => {
      const options = ids.flatMap((id) => (attr.options[id] !== undefined ? [attr.options[id]!] : []));
      const missing = labelsOf(
        q,
        ids.filter((id) => attr.options[id] === undefined),
      );
      return { options, missing };
    };
    const capped = Object.keys(t.quotas).map(Number);
    // Who qualifies: the targeted answers, unless quotas leave the rest to the group's other answers.
    if (!capped.length || t.othersQuota == null) {
      const { options, missing } = map(t.optionIds);
      if (missing.length)
        warnings.push(
          `"${name}": ${quoted(missing)} has no Dynata option, so Samplify is asked only for ${
            options.length
              ? quoted(
                  labelsOf(
                    q,
                    t.optionIds.filter((id) => attr.options[id] !== undefined),
                  ),
                )
              : "nobody on it (the filter is not sent)"
          }`,
        );
      if (options.length) plan.filters.push({ attributeId: attr.attributeId, options, operator: "include" } satisfies QuotaFilter);
    }
    if (capped.length) plan.quotaGroups.push({ name, quotaCells: cellsOf(q, t, attr, completes, name, warnings) });
  }
  for (const x of def.crossed ?? []) crossedGroup(def, x, plan, warnings);
  return { quotaPlan: plan, warnings };
}

/** A crossing's cells as a quota group of nested cells (both answers' nodes, at the cell's cap), or warnings naming what Dynata cannot take. */
function crossedGroup(def: SurveyDefinition, x: DefCrossing, plan: QuotaPlan, warnings: string[]): void {
  const qs = x.keys.map((k) => def.demographics.find((d) => d.key === k));
  const [a, b] = qs;
  if (!a || !b) return;
  const nameOf = (q: DefQuestion) => q.title || q.text;
  const label = `${nameOf(a)} × ${nameOf(b)}`;
  const attrs = [a, b].map((q) => (q.systemQuestionId !== null ? ATTRIBUTES[q.systemQuestionId] : undefined));
  const without = [a, b].filter((_, i) => !attrs[i]);
  if (without.length) {
    warnings.push(`The crossed cells "${label}" are not sent to Samplify: Dynata's reference names no attribute for ${quoted(without.map(nameOf))}; the survey screens and caps on them`);
    return;
  }
  const cells: QuotaCell[] = [];
  for (const c of x.cells) {
    const options = c.optionIds.map((id, i) => attrs[i]!.options[id]);
    if (options.some((o) => o === undefined)) {
      warnings.push(`"${label}": the cell ${quoted([labelsOf(a, [c.optionIds[0]])[0]!, labelsOf(b, [c.optionIds[1]])[0]!])} (${c.cap} completes) is not sent: it has no Dynata option`);
      continue;
    }
    cells.push({ quotaNodes: options.map((o, i) => ({ attributeId: attrs[i]!.attributeId, options: [o!] })), count: c.cap });
  }
  if (cells.length) plan.quotaGroups.push({ name: label, quotaCells: cells });
}

/** A group's quota cells: each capped answer at its cap, then its other qualifying answers at what the caps leave. */
function cellsOf(q: DefQuestion, t: DefTarget, attr: { attributeId: string; options: Record<number, string> }, completes: number, name: string, warnings: string[]): QuotaCell[] {
  const cells: QuotaCell[] = [];
  const node = (ids: number[]) => ({ attributeId: attr.attributeId, options: ids.map((id) => attr.options[id]!) });
  // In the question's order of answers.
  const capped = q.options.filter((o) => t.quotas[o.id] !== undefined);
  for (const o of capped) {
    if (attr.options[o.id] === undefined) warnings.push(`"${name}": the quota of "${o.text}" (${t.quotas[o.id]} completes) is not sent: it has no Dynata option`);
    else cells.push({ quotaNodes: [node([o.id])], count: t.quotas[o.id]! });
  }
  // The rest: the targeted answers without a cap and, unless "only these", the group's other answers.
  const rest = q.options.filter((o) => t.quotas[o.id] === undefined && (t.optionIds.includes(o.id) || t.othersQuota != null));
  const left = Math.max(0, completes - capped.reduce((s, o) => s + t.quotas[o.id]!, 0));
  const restCount = t.othersQuota != null ? Math.min(left, t.othersQuota) : left;
  if (!rest.length || restCount <= 0) return cells;
  const mapped = rest.filter((o) => attr.options[o.id] !== undefined);
  const missing = rest.filter((o) => attr.options[o.id] === undefined);
  if (missing.length)
    warnings.push(
      `"${name}": ${quoted(missing.map((o) => o.text))} has no Dynata option, so the cell of the other answers (${restCount} completes) ${mapped.length ? `takes ${quoted(mapped.map((o) => o.text))} only` : "is not sent"}`,
    );
  if (mapped.length) cells.push({ quotaNodes: [node(mapped.map((o) => o.id))], count: restCount });
  return cells;
}

function labelsOf(q: DefQuestion, ids: number[]): string[] {
  return ids.map((id) => q.options.find((o) => o.id === id)?.text ?? String(id));
}
