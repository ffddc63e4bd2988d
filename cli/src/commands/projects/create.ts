// `ideally projects create --from FILE [--dry-run]`: the project file (file.ts) becomes the calls
// the web app's project editor makes: Projects, ChangeTargets, FileUploadUrl + upload, TestOptions,
// Questions, Create{PriceSensitivities,MarketReach}, UpdateProjectScheduling. The file is resolved
// and checked against the API's reference data first (resolve.ts), so the server's checks rarely
// fail; when a call does fail after the project exists, the half-built draft is deleted. A dry run
// creates nothing: CreditCostEstimate prices the settings.
import { readFileSync } from "node:fs";
import type { ApiClient, Schemas } from "@ideally/contracts";
import { apiError, CliError, usageError } from "../../errors.ts";
import { networkError } from "../../net.ts";
import { readStdin } from "../../prompt.ts";
import { PROJECT_TYPES as TYPE_NAMES } from "@ideally/contracts/labels";
import { readCategories, readFrameworks, readMarkets, readTargetOptions } from "../../lookups.ts";
import { bold, note, printJson, summary, table, plural } from "../../output.ts";
import { needClient, ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";
import { readProjectFile, type ProjectPlan, type Upload } from "./file.ts";
import { resolvePlan, type Resolved } from "./resolve.ts";

export interface CreateOptions extends GlobalOptions {
  from: string;
  dryRun?: boolean;
}

export interface Created {
  id: number;
  projectName: string;
  statusCode: number;
  testOptionIds: number[];
  questionIds: number[];
  uploads: { file: string; key: string }[];
}

/** How a project file read from stdin (`-`) is named in messages. */
export const STDIN_NAME = "<stdin>";

/** Reads, resolves and checks a project file: every problem is a usage error at its line. */
export async function checkFile(api: Api, path: string): Promise<{ plan: ProjectPlan; resolved: Resolved }> {
  let text: string;
  // `-` is stdin: named <stdin> in messages, its image paths relative to the working folder.
  const name = path === "-" ? STDIN_NAME : path;
  try {
    text = path === "-" ? await readStdin() : readFileSync(path, "utf8");
  } catch (e) {
    throw usageError(`cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const { file, plan } = readProjectFile(name, text);
  const [markets, options, categories, frameworks] = await Promise.all([
    readMarkets(api.client),
    plan.targets.length || plan.crossedQuotas.length ? readTargetOptions(api.client) : Promise.resolve([]),
    plan.category !== undefined ? readCategories(api.client) : Promise.resolve([]),
    readFrameworks(api.client),
  ]);
  return { plan, resolved: resolvePlan(file, plan, { markets, options, categories, frameworks }) };
}

export async function runCreate(o: CreateOptions): Promise<void> {
  const api = signedIn(o);
  needClient(api);
  const { plan, resolved } = await checkFile(api, o.from);
  if (o.dryRun) {
    // Priced from the settings: no draft is created, so nothing is left behind (not even in the trash).
    const cost = ok(await api.client.POST("/api/v1/Projects/CreditCostEstimate", { body: resolved.estimate }), "pricing the project");
    const feasibility = await explain(api, resolved);
    if (o.json) printJson({ dryRun: true, cost, feasibility });
    else process.stdout.write(`${costText(cost, true)}\n${feasibilityText(feasibility)}\n`);
    refuseUnmetQuotas(o.from === "-" ? STDIN_NAME : o.from, feasibility);
    return;
  }
  const created = await build(api.client, api.base, plan, resolved);
  const cost = ok(await api.client.GET("/api/v1/Projects({key})/CreditCostNow", { params: { path: { key: String(created.id) } } }), "reading the cost");
  if (o.json) return printJson({ ...created, cost });
  process.stdout.write(
    `Created project ${bold(String(created.id))} '${created.projectName}' (Draft): ${plural(created.testOptionIds.length, "test option")}, ${plural(created.questionIds.length, "custom question")}, ${plural(created.uploads.length, "file")} uploaded\n`,
  );
  process.stdout.write(`${costText(cost, false)}\n`);
}

export interface ValidateOptions extends GlobalOptions {}

/** `projects validate FILE`: every check, nothing created, nothing priced. */
export async function runValidate(path: string, o: ValidateOptions): Promise<void> {
  const api = signedIn(o);
  const { plan, resolved } = await checkFile(api, path);
  const result = {
    file: path === "-" ? STDIN_NAME : path,
    valid: true,
    project: resolved.project,
    framework: { id: resolved.framework.id, title: resolved.framework.title },
    regions: resolved.markets.map((m) => ({ id: m.id, name: m.name, code: m.code, currency: m.currency })),
    targets: resolved.targets,
    crossedQuotas: resolved.crossedQuotas,
    testOptions: plan.testOptions.length,
    questions: plan.questions.length,
    uploads: [...plan.testOptions, ...plan.questions].flatMap((x) => (x.image ? [x.image.path] : [])),
  };
  const feasibility = await explain(api, resolved);
  if (o.json) printJson({ ...result, valid: feasibility.quotasOk, feasibility });
  else {
    process.stdout.write(
      `${result.file}: ${feasibility.quotasOk ? "valid" : "not valid"}\n${summary([
        ["project", `${resolved.project.projectName} (${TYPE_NAMES[resolved.project.projectTypeId]}, ${resolved.framework.title})`],
        ["regions", result.regions.map((r) => `${r.name} (${r.code}, ${r.currency})`).join(", ")],
        ["targets", String(result.targets.length)],
        ["crossed cells", String(result.crossedQuotas.length)],
        ["test options", String(result.testOptions)],
        ["questions", String(result.questions)],
        ["files", String(result.uploads.length)],
      ])}\n${feasibilityText(feasibility)}\n`,
    );
  }
  refuseUnmetQuotas(result.file, feasibility);
}

type Feasibility = Schemas["FeasibilityExplanation"];

/**
 * The markets' feasibility and what the quotas mean, from the API (Projects/FeasibilityEstimate: the
 * same words the web editor shows), for the file's markets, completes, targets and crossed quota
 * cells (each cell's needed and deliverable completes, as Submit's 409 gives them); nothing created.
 */
async function explain(api: Api, resolved: Resolved): Promise<Feasibility> {
  const targets = resolved.targets.flatMap((t) =>
    t.systemQuestionOptionId != null
      ? [{ systemQuestionOptionId: t.systemQuestionOptionId, regionId: t.regionId ?? null, quotaPercent: t.quotaPercent ?? null, ...(t.onlyThese ? { onlyThese: true } : {}) }]
      : [],
  );
  const body = { regionIds: resolved.estimate.regionIds, sampleSize: resolved.estimate.sampleSize ?? null, targets, crossedQuotas: resolved.crossedQuotas };
  return ok(await api.client.POST("/api/v1/Projects/FeasibilityEstimate", { body }), "estimating feasibility").explanation;
}

/**
 * The explanation's lines as a list, each wrapped at spaces to the terminal's width (note(): whole
 * with --wide or no terminal), a crossed cell's label ("Male × 18-24") never split across lines.
 */
export function feasibilityText(f: Feasibility): string {
  const wrapped = (l: string) => note(`- ${l}`.replaceAll(" × ", "\u00a0×\u00a0")).replaceAll("\u00a0", " ");
  return [bold("Feasibility (FeasibilityEstimate):"), ...f.lines.map(wrapped)].join("\n");
}

/** Quotas or crossed cells no run can fill: the create would be refused at ChangeTargets, so the check fails here (exit 1), naming the group or crossing. */
function refuseUnmetQuotas(path: string, f: Feasibility): void {
  const bad = [
    ...(f.groups.some((g) => !g.ok)
      ? [
          `targets: ${f.groups
            .filter((g) => !g.ok)
            .map((g) => g.text)
            .join(" ")}`,
        ]
      : []),
    ...(f.crossed.some((x) => !x.ok)
      ? [
          `crossedQuotas: ${f.crossed
            .filter((x) => !x.ok)
            .map((x) => x.text)
            .join(" ")}`,
        ]
      : []),
  ];
  if (bad.length) throw usageError(`${path}: ${bad.join("; ")}`);
}

export function costText(c: Schemas["CreditCostEstimate"], dryRun: boolean): string {
  const lines = [
    dryRun ? bold("Dry run: the file is valid and nothing was created; submitting it would cost (CreditCostEstimate):") : bold("Cost to submit (CreditCostNow):"),
    table(
      ["region", "panel", "sample", "rate", "cost"],
      c.regions.map((r) => [r.regionName, r.isCustomerPanel ? "Customer" : "Ideally", String(r.sampleSize), String(r.rate), String(r.cost)]),
    ),
    summary([
      ["cells", `${c.cells} (factor ${c.cellFactor})`],
      [
        "add-ons",
        [c.addOns.priceSensitivity && "price sensitivity", c.addOns.marketReach && "market reach", c.addOns.extraCustomQuestions > 0 && plural(c.addOns.extraCustomQuestions, "extra custom question")]
          .filter(Boolean)
          .join(", ") || "none",
      ],
      ["total", bold(`${c.total} credits`)],
      ["available", `${c.available} (balance ${c.balance}, overdraft ${c.overdraftLimit})`],
      ["affordable", c.affordable ? "yes" : "no: top up or transfer credits first"],
    ]),
  ];
  return lines.join("\n");
}

async function uploadFile(client: ApiClient, base: string, projectId: number, u: Upload): Promise<{ key: string; fileType: string; fileName: string }> {
  const url = ok(
    await client.GET("/api/v1/Projects({key})/FileUploadUrl", { params: { path: { key: String(projectId) }, query: { fileName: u.fileName, fileType: u.fileType, fileSize: String(u.size) } } }),
    `asking to upload ${u.fileName}`,
  );
  // The URL is signed: our own /api/files/upload or an S3 presigned PUT, so a plain fetch.
  const target = new URL(url.url, `${base}/`);
  // No request timeout here: sending a large file takes as long as it takes; failures in one line.
  const res = await fetch(target, { method: url.method, headers: url.headers, body: Bun.file(u.path) }).catch((e: unknown) => {
    throw networkError(target.origin, e);
  });
  if (!res.ok) throw apiError(`uploading ${u.fileName}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return { key: url.key, fileType: url.fileType as "image/png", fileName: url.fileName };
}

async function remove(client: ApiClient, id: number): Promise<void> {
  await client.DELETE("/api/v1/Projects({key})", { params: { path: { key: String(id) } } }).catch(() => undefined);
}

export async function build(client: ApiClient, base: string, plan: ProjectPlan, resolved: Resolved): Promise<Created> {
  const p = ok(await client.POST("/api/v1/Projects", { body: resolved.project }), "creating the project");
  // The created row carries these (entity types leave every field optional for $select).
  const id = p.id!;
  const key = String(id);
  const created: Created = { id, projectName: p.projectName!, statusCode: p.statusCode!, testOptionIds: [], questionIds: [], uploads: [] };
  try {
    if (resolved.targets.length || resolved.crossedQuotas.length) {
      const body = { targets: resolved.targets, ...(resolved.crossedQuotas.length ? { crossedQuotas: resolved.crossedQuotas } : {}) };
      ok(await client.POST("/api/v1/Projects({key})/ChangeTargets", { params: { path: { key } }, body }), "setting the targets");
    }
    for (const t of plan.testOptions) {
      const file = t.image ? await uploadFile(client, base, id, t.image) : undefined;
      if (file && t.image) created.uploads.push({ file: t.image.path, key: file.key });
      const row = ok(await client.POST("/api/v1/TestOptions", { body: { ...t.body, projectId: id, ...(file ? { file } : {}) } }), `adding test option '${t.body.conceptText}'`);
      created.testOptionIds.push(row!.id!);
    }
    for (const q of plan.questions) {
      const s3File = q.image ? await uploadFile(client, base, id, q.image) : undefined;
      if (s3File && q.image) created.uploads.push({ file: q.image.path, key: s3File.key });
      const row = ok(
        await client.POST("/api/v1/Questions", { body: { ...q.body, projectId: id, ...(s3File ? { s3File: s3File as Schemas["FileRef"] } : {}) } }),
        `adding question '${q.body.questionText}'`,
      );
      created.questionIds.push(row!.id!);
    }
    if (plan.priceSensitivity)
      ok(
        await client.POST("/api/v1/Projects({key})/CreatePriceSensitivities", { params: { path: { key } }, body: { ...plan.priceSensitivity, testOptionIds: created.testOptionIds } }),
        "setting up price sensitivity",
      );
    if (plan.marketReach)
      ok(await client.POST("/api/v1/Projects({key})/CreateMarketReach", { params: { path: { key } }, body: { ...plan.marketReach, testOptionIds: created.testOptionIds } }), "setting up market reach");
    if (plan.schedule) ok(await client.POST("/api/v1/Projects({key})/UpdateProjectScheduling", { params: { path: { key } }, body: plan.schedule }), "setting the schedule");
  } catch (e) {
    await remove(client, id);
    if (e instanceof CliError) throw new CliError(`${e.message} (the draft project ${id} was deleted)`, e.exitCode);
    throw e;
  }
  return created;
}
