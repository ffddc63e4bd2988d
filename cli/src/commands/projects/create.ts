// `ideally projects create --from FILE [--dry-run]`: the project file (file.ts) becomes the calls
// the web app's project editor makes: Projects, ChangeTargets, FileUploadUrl + upload, TestOptions,
// Questions, Create{PriceSensitivities,MarketReach}, UpdateProjectScheduling. A failure after the
// project exists deletes the half-built draft, so a rerun starts clean.
import { readFileSync } from "node:fs";
import type { ApiClient, Schemas } from "../../../../contracts/client.ts";
import { apiError, CliError, usageError } from "../../errors.ts";
import { bold, printJson, summary, table } from "../../output.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";
import { readProjectFile, type ProjectPlan, type Upload } from "./file.ts";

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

type Cost = Schemas["CreditCostNow"];

export async function runCreate(o: CreateOptions): Promise<void> {
  let text: string;
  try {
    text = readFileSync(o.from, "utf8");
  } catch (e) {
    throw usageError(`cannot read ${o.from}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const plan = readProjectFile(o.from, text);
  const api = signedIn(o);
  needClient(api);
  const regionIds = await resolveRegions(api.client, plan.regions, o.from);
  const created = await build(api.client, api.base, plan, regionIds);
  let cost: Cost;
  try {
    cost = ok(await api.client.GET("/api/v1/Projects({key})/CreditCostNow", { params: { path: { key: String(created.id) } } }), "reading the cost");
  } finally {
    // A dry run leaves nothing behind: the draft existed only to price it with CreditCostNow.
    if (o.dryRun) await remove(api.client, created.id);
  }
  if (o.json) return printJson(o.dryRun ? { dryRun: true, cost } : { ...created, cost });
  if (!o.dryRun) process.stdout.write(`Created project ${bold(String(created.id))} '${created.projectName}' (Draft): ${created.testOptionIds.length} test options, ${created.questionIds.length} custom questions, ${created.uploads.length} files uploaded\n`);
  process.stdout.write(`${costText(cost, o.dryRun === true)}\n`);
}

export function costText(c: Cost, dryRun: boolean): string {
  const lines = [
    dryRun ? bold("Dry run: the file is valid; submitting this project would cost (the draft priced was deleted again):") : bold("Cost to submit (CreditCostNow):"),
    table(
      ["region", "panel", "sample", "rate", "cost"],
      c.regions.map((r) => [r.regionName, r.isCustomerPanel ? "Customer" : "Ideally", String(r.sampleSize), String(r.rate), String(r.cost)]),
    ),
    summary([
      ["cells", `${c.cells} (factor ${c.cellFactor})`],
      ["add-ons", [c.addOns.priceSensitivity && "price sensitivity", c.addOns.marketReach && "market reach", c.addOns.extraCustomQuestions > 0 && `${c.addOns.extraCustomQuestions} extra custom questions`].filter(Boolean).join(", ") || "none"],
      ["total", bold(`${c.total} credits`)],
      ["available", `${c.available} (balance ${c.balance}, overdraft ${c.overdraftLimit})`],
      ["affordable", c.affordable ? "yes" : "no: top up or transfer credits first"],
    ]),
  ];
  return lines.join("\n");
}

async function resolveRegions(client: ApiClient, wanted: (number | string)[], file: string): Promise<number[]> {
  if (wanted.every((r) => typeof r === "number")) return wanted as number[];
  const all = ok(await client.GET("/api/v1/Regions", { params: { query: { $select: "id,regionName,regionCode", $top: 1000 } } }), "reading the regions").value;
  return wanted.map((r) => {
    if (typeof r === "number") return r;
    const hit = all.find((x) => x?.regionName?.toLowerCase() === r.toLowerCase() || x?.regionCode?.toLowerCase() === r.toLowerCase());
    if (!hit) throw usageError(`${file}: regions: no region '${r}' (names: ${all.map((x) => x?.regionName).join(", ")})`);
    return hit.id!;
  });
}

async function uploadFile(client: ApiClient, base: string, projectId: number, u: Upload): Promise<{ key: string; fileType: string; fileName: string }> {
  const url = ok(
    await client.GET("/api/v1/Projects({key})/FileUploadUrl", { params: { path: { key: String(projectId) }, query: { fileName: u.fileName, fileType: u.fileType, fileSize: String(u.size) } } }),
    `asking to upload ${u.fileName}`,
  );
  // The URL is signed: our own /api/files/upload or an S3 presigned PUT, so a plain fetch.
  const target = new URL(url.url, `${base}/`);
  const res = await fetch(target, { method: url.method, headers: url.headers, body: Bun.file(u.path) });
  if (!res.ok) throw apiError(`uploading ${u.fileName}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return { key: url.key, fileType: url.fileType as "image/png", fileName: url.fileName };
}

async function remove(client: ApiClient, id: number): Promise<void> {
  await client.DELETE("/api/v1/Projects({key})", { params: { path: { key: String(id) } } }).catch(() => undefined);
}

export async function build(client: ApiClient, base: string, plan: ProjectPlan, regionIds: number[]): Promise<Created> {
  const p = ok(await client.POST("/api/v1/Projects", { body: { ...plan.project, regionIds } }), "creating the project");
  // The created row carries these (entity types leave every field optional for $select).
  const id = p.id!;
  const key = String(id);
  const created: Created = { id, projectName: p.projectName!, statusCode: p.statusCode!, testOptionIds: [], questionIds: [], uploads: [] };
  try {
    if (plan.targets.length) {
      const regionOf = (r: number | string | undefined) => (r === undefined ? null : typeof r === "number" ? r : regionIds[plan.regions.indexOf(r)] ?? null);
      ok(
        await client.POST("/api/v1/Projects({key})/ChangeTargets", {
          params: { path: { key } },
          body: { targets: plan.targets.map((t) => ({ systemQuestionOptionId: t.option, regionId: regionOf(t.region), ...(t.quota !== undefined ? { quotaPercent: t.quota } : {}) })) },
        }),
        "setting the targets",
      );
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
      ok(await client.POST("/api/v1/Projects({key})/CreatePriceSensitivities", { params: { path: { key } }, body: { ...plan.priceSensitivity, testOptionIds: created.testOptionIds } }), "setting up price sensitivity");
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
