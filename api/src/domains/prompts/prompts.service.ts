// Prompts and their versions (SPEC 7): Publish (exactly one published version per prompt),
// DownloadToYml / ImportFromYml (a version as a YAML document and back), Run (a version tried on a
// project: its template filled with the project's computed results, never invented numbers),
// GetPromptVersionHistory and PlaybookPluginOptions. Writes are staff's (prompts are global).
import { parse, stringify } from "yaml";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { qualResults } from "../results/results.service.ts";
import { jsonParam } from "../../db/params.ts";

export interface VersionRow {
  id: number;
  promptId: number;
  versionNumber: number;
  systemPrompt: string | null;
  template: string;
  model: string | null;
  temperature: number | null;
  settings: Record<string, unknown>;
  notes: string | null;
  isPublished: boolean;
  publishedAt: string | null;
}

/** A version with its prompt's name and type: what Publish and ImportFromYml answer (PromptVersionState). */
export type VersionState = VersionRow & { promptName: string; promptType: string };

const COLUMNS = `v.id, v.prompt_id as "promptId", v.version_number as "versionNumber", v.system_prompt as "systemPrompt", v.template,
  v.model, v.temperature, v.settings, v.notes, v.is_published as "isPublished", to_json(v.published_at)#>>'{}' as "publishedAt"`;

async function version(tx: Tx, id: number, lock = false): Promise<VersionState> {
  // COLUMNS is a constant of this file.
  const [v] = await tx.unsafe<VersionState[]>(
    `select ${COLUMNS}, p.name as "promptName", p.prompt_type as "promptType" from prompt_versions v join prompts p on p.id = v.prompt_id where v.id = $1 ${lock ? "for update of v, p" : ""}`,
    [id],
  );
  if (!v) throw new ApiError("NotFound", `No prompt version ${id}`);
  return v;
}

async function audit(tx: Tx, userId: number, promptId: number, versionId: number, event: string, data: Record<string, unknown> = {}): Promise<void> {
  await tx`insert into data_events_log (user_id, entity_type, entity_id, event, prompt_id, data)
           values (${userId}, 'PromptVersion', ${versionId}, ${event}, ${promptId}, ${jsonParam(tx, data)})`;
}

/** Publish: this version becomes the prompt's only published one. */
export async function publish(db: Db, ctx: RequestCtx, versionId: number): Promise<VersionState> {
  return enterTenant(db, ctx, async (tx) => {
    const v = await version(tx, versionId, true);
    const [previous] = await tx<{ id: number }[]>`select id from prompt_versions where prompt_id = ${v.promptId} and is_published`;
    await tx`update prompt_versions set is_published = false, updated_at = now() where prompt_id = ${v.promptId} and is_published and id <> ${v.id}`;
    await tx`update prompt_versions set is_published = true, published_at = now(), published_by_user_id = ${ctx.principal.userId}, updated_at = now() where id = ${v.id}`;
    await tx`update prompts set published_version_id = ${v.id}, updated_at = now() where id = ${v.promptId}`;
    await audit(tx, ctx.principal.userId, v.promptId, v.id, "Published", { versionNumber: v.versionNumber, previousVersionId: previous?.id ?? null });
    return version(tx, v.id);
  });
}

/** The YAML document of a version: the prompt it belongs to, and every field of the version. */
export async function downloadToYml(db: Db, ctx: RequestCtx, versionId: number): Promise<{ fileName: string; yml: string }> {
  return enterTenant(db, ctx, async (tx) => {
    const v = await version(tx, versionId);
    const doc = {
      prompt: { name: v.promptName, type: v.promptType },
      version: v.versionNumber,
      model: v.model,
      temperature: v.temperature,
      settings: v.settings,
      notes: v.notes,
      systemPrompt: v.systemPrompt,
      template: v.template,
    };
    return { fileName: `${v.promptName.replace(/[^\w-]+/g, "-")}-v${v.versionNumber}.yml`, yml: stringify(doc, { lineWidth: 0 }) };
  });
}

/** ImportFromYml: a new version (the next number) of the named prompt, created if missing; not published. */
export async function importFromYml(db: Db, ctx: RequestCtx, yml: string): Promise<VersionState> {
  let doc: unknown;
  try {
    doc = parse(yml);
  } catch (e) {
    const pos = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new ApiError("ValidationError", `The YAML does not parse${pos ? ` (line ${pos})` : ""}: ${(e as Error).message.split("\n")[0]}`);
  }
  const d = doc as { prompt?: { name?: unknown; type?: unknown }; template?: unknown; systemPrompt?: unknown; model?: unknown; temperature?: unknown; settings?: unknown; notes?: unknown };
  const errors: { path: string; message: string }[] = [];
  if (typeof d?.prompt?.name !== "string" || !d.prompt.name.trim()) errors.push({ path: "prompt.name", message: "Required" });
  if (typeof d?.template !== "string" || !d.template.trim()) errors.push({ path: "template", message: "Required" });
  if (d?.temperature != null && (typeof d.temperature !== "number" || d.temperature < 0 || d.temperature > 2)) errors.push({ path: "temperature", message: "A number from 0 to 2" });
  if (d?.settings != null && (typeof d.settings !== "object" || Array.isArray(d.settings))) errors.push({ path: "settings", message: "A mapping" });
  if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
  return enterTenant(db, ctx, async (tx) => {
    const name = (d.prompt!.name as string).trim();
    let [p] = await tx<{ id: number }[]>`select id from prompts where name = ${name} for update`;
    if (!p) {
      if (typeof d.prompt!.type !== "string")
        throw new ApiError("ValidationError", "prompt.type: required for a new prompt", undefined, [{ path: "prompt.type", message: "Required for a new prompt" }]);
      [p] = await tx<{ id: number }[]>`insert into prompts (name, prompt_type) values (${name}, ${d.prompt!.type}) returning id`;
    }
    const [v] = await tx<{ id: number }[]>`
      insert into prompt_versions (prompt_id, system_prompt, template, model, temperature, settings, notes, created_by_user_id)
      values (${p!.id}, ${(d.systemPrompt as string) ?? null}, ${d.template as string}, ${(d.model as string) ?? null}, ${(d.temperature as number) ?? null},
              ${jsonParam(tx, d.settings ?? {})}, ${(d.notes as string) ?? null}, ${ctx.principal.userId})
      returning id`;
    await audit(tx, ctx.principal.userId, p!.id, v!.id, "ImportedFromYml");
    return version(tx, v!.id);
  });
}

export interface HistoryRow {
  at: string;
  event: string;
  promptVersionId: number | null;
  versionNumber: number | null;
  userId: number | null;
  data: Record<string, unknown>;
}

/** GetPromptVersionHistory: the prompt's versions created, imported, published and run, oldest first. */
export async function history(db: Db, ctx: RequestCtx, promptId: number): Promise<{ promptId: number; value: HistoryRow[] }> {
  return enterTenant(db, ctx, async (tx) => {
    const [p] = await tx`select 1 from prompts where id = ${promptId}`;
    if (!p) throw new ApiError("NotFound", `No prompt ${promptId}`);
    const value = await tx<HistoryRow[]>`
      select * from (
        select to_json(v.created_at)#>>'{}' as at, 'Created' as event, v.id as "promptVersionId", v.version_number as "versionNumber",
               v.created_by_user_id as "userId", '{}'::jsonb as data, v.created_at as t
        from prompt_versions v where v.prompt_id = ${promptId}
        union all
        select to_json(e.created_at)#>>'{}', e.event, e.entity_id, v.version_number, e.user_id, e.data, e.created_at
        from data_events_log e left join prompt_versions v on v.id = e.entity_id
        where e.prompt_id = ${promptId} and e.entity_type = 'PromptVersion'
      ) h order by t, event`;
    return { promptId, value: value.map(({ t: _t, ...r }: HistoryRow & { t?: unknown }) => r) };
  });
}

/** The placeholders a template can use, filled by Run from the project's computed results. */
export const TEMPLATE_VARIABLES: Record<string, string> = {
  projectName: "The project's name",
  testOptions: "The test options, one per line",
  respondents: "Respondents behind the results",
  leaders: "Per measure, the test option with the highest weighted top-2-box and its figure",
  measures: "Every measure's weighted top-2-box per test option",
};

/** PlaybookPluginOptions: what prompt templates can draw on (documented placeholders and prompt types). */
export function playbookPluginOptions() {
  return {
    variables: Object.entries(TEMPLATE_VARIABLES).map(([name, description]) => ({ name, placeholder: `{{${name}}}`, description })),
    promptTypes: ["ListView", "MapView", "Drivers", "FullTestSummary", "QualQuestionSummary", "EmailSummary", "PriceSensitivity", "Themes", "Sentiment", "Translation", "Categories", "Chat"],
    providers: [
      { name: "local", description: "The default: fills Run's template, and writes summaries and chat answers from the computed results, deterministically, with no network" },
      {
        name: "openai",
        description:
          "An OpenAI-compatible chat-completions endpoint (AI_BASE_URL, AI_API_KEY, AI_MODEL): summaries, the chat, themes and translation; prompts of the types FullTestSummary, EmailSummary, Chat, Themes and Translation use their published version",
      },
    ],
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * Run: the version's template on a project: placeholders filled from the project's results
 * (QualResults, unfiltered), by the built-in local provider. The facts used are returned with it.
 */
export async function run(db: Db, ctx: RequestCtx, versionId: number, projectId: number) {
  const v = await enterTenant(db, { ...ctx, clientId: null }, (tx) => version(tx, versionId));
  const facts = await enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ name: string; clientId: number }[]>`select project_name as name, client_id as "clientId" from projects where id = ${projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    const options = await tx<{ id: number; text: string }[]>`select id, concept_text as text from test_options where project_id = ${projectId} and deleted_at is null order by sort_order, id`;
    return { p, options };
  });
  const qual = await qualResults(db, { ...ctx }, { projectId, filters: {} });
  const name = (id: number | null) => (id === null ? "All" : (facts.options.find((o) => o.id === id)?.text ?? String(id)));
  const respondents = Math.max(0, ...qual.measures.flatMap((m) => m.results.map((r) => r.n)));
  const leaders = qual.measures.map((m) => {
    const best = [...m.results].sort((a, b) => b.top2 - a.top2)[0]!;
    return `${m.title}: ${name(best.testOptionId)} leads with ${pct(best.top2)} top-2-box (n=${best.n})`;
  });
  const measures = qual.measures.map((m) => `${m.title}: ${m.results.map((r) => `${name(r.testOptionId)} ${pct(r.top2)}`).join(", ")}`);
  const values: Record<string, string> = {
    projectName: facts.p.name,
    testOptions: facts.options.map((o) => o.text).join("\n"),
    respondents: String(respondents),
    leaders: leaders.join("\n"),
    measures: measures.join("\n"),
  };
  const unknown: string[] = [];
  const output = v.template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => {
    if (k in values) return values[k]!;
    unknown.push(k);
    return `{{${k}}}`;
  });
  await enterTenant(db, { ...ctx, clientId: null }, (tx) => audit(tx, ctx.principal.userId, v.promptId, v.id, "Run", { projectId }));
  return { promptVersionId: v.id, projectId, provider: "local", output, unknownPlaceholders: [...new Set(unknown)], facts: values };
}
