// `ideally projects file ID [-o FILE] [--force]`: a project's set-up written as a project file
// (docs/cli.md "The project file"): its settings, markets, completes, demographic targets with their
// quotas, crossed quota cells, and test options' texts, which `projects create --from` and `projects apply` read back.
// `ideally projects apply ID --from FILE`: a file's markets, completes and targets (quotas
// included) set on an existing Draft in one ChangeTargets call: all or nothing, checked first as
// `projects validate` checks the file.
import { existsSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Document, isMap, isScalar, isSeq } from "yaml";
import { PROJECT_TYPES } from "@ideally/contracts/labels";
import { idArg } from "../../args.ts";
import { usageError } from "../../errors.ts";
import { readMarkets, readTargetOptions } from "../../lookups.ts";
import { printJson } from "../../output.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";
import { checkFile, feasibilityText } from "./create.ts";

export interface FileOutOptions extends GlobalOptions {
  output?: string;
  force?: boolean;
}

/** What the file leaves out: said in its header and on stderr, never silently. */
const NOT_WRITTEN = "test option images, custom questions, price sensitivity, market reach, the schedule and screener-question targets";

export async function runFileOut(id: string, o: FileOutOptions): Promise<void> {
  const api = signedIn(o);
  const key = idArg(id);
  if (o.output) {
    const full = resolve(o.output);
    if (!existsSync(dirname(full)) || !statSync(dirname(full)).isDirectory()) throw usageError(`-o ${o.output}: no folder ${dirname(full)}`);
    if (existsSync(full) && !o.force) throw usageError(`${o.output} exists; --force overwrites it`);
  }
  const path = { params: { path: { key } } };
  const [p, regions, targets, crossed, options, markets, targetOptions] = await Promise.all([
    api.client
      .GET("/api/v1/Projects({key})", {
        params: { ...path.params, query: { $select: "id,projectName,projectTypeId,frameworkId,categoryId,productType,isBranded,brandName,researchNote,launchDate,splitCellQuota" } },
      })
      .then((r) => ok(r, `reading project ${id}`)),
    api.client
      .GET("/api/v1/ProjectsRegions", { params: { query: { $filter: `projectId eq ${key}`, $select: "regionId,sampleSize", $orderby: "regionId" } } })
      .then((r) => ok(r, "reading the markets").value),
    api.client
      .GET("/api/v1/Targets", { params: { query: { $filter: `projectId eq ${key}`, $select: "systemQuestionOptionId,questionOptionId,regionId,quotaPercent,onlyThese", $orderby: "id", $top: 500 } } })
      .then((r) => ok(r, "reading the targets").value),
    api.client
      .GET("/api/v1/CrossedQuotaCells", {
        params: { query: { $filter: `projectId eq ${key}`, $select: "regionId,firstOptionId,secondOptionId,quotaPercent", $orderby: "regionId,id", $top: 500 } },
      })
      .then((r) => ok(r, "reading the crossed quota cells").value),
    api.client
      .GET("/api/v1/TestOptions", { params: { query: { $filter: `projectId eq ${key}`, $select: "conceptText,conceptDescription", $orderby: "sortOrder,id" } } })
      .then((r) => ok(r, "reading the test options").value),
    readMarkets(api.client),
    readTargetOptions(api.client),
  ]);
  const code = (regionId: number) => markets.find((m) => m.id === regionId)?.code || String(regionId);
  const demographic = targets.flatMap((t) => (t?.systemQuestionOptionId != null ? [{ ...t, systemQuestionOptionId: t.systemQuestionOptionId }] : []));
  const sizes = [...new Set(regions.map((r) => r?.sampleSize))];
  const file: Record<string, unknown> = {
    name: p.projectName,
    type: p.projectTypeId != null ? PROJECT_TYPES[p.projectTypeId] : undefined,
    framework: p.frameworkId,
    regions: regions.flatMap((r) => (r?.regionId != null ? [code(r.regionId)] : [])),
    // Every market fields the same completes in the editor and the file; a project that differs
    // (set per market through the API) takes the first market's here.
    ...(sizes[0] != null ? { sampleSize: sizes[0] } : {}),
    ...(p.categoryId != null ? { category: p.categoryId } : {}),
    ...(p.productType ? { productType: p.productType } : {}),
    ...(p.isBranded != null ? { branded: p.isBranded } : {}),
    ...(p.brandName ? { brandName: p.brandName } : {}),
    ...(p.researchNote ? { researchNote: p.researchNote } : {}),
    ...(p.launchDate ? { launchDate: p.launchDate.slice(0, 10) } : {}),
    ...(p.splitCellQuota != null ? { splitCellQuota: p.splitCellQuota } : {}),
    ...(demographic.length
      ? {
          targets: demographic.map((t) => ({
            option: t.systemQuestionOptionId,
            ...(t.quotaPercent != null ? { quota: t.quotaPercent } : {}),
            ...(t.regionId != null ? { region: code(t.regionId) } : {}),
            ...(t.onlyThese ? { onlyThese: true } : {}),
          })),
        }
      : {}),
    ...(crossed.length ? { crossedQuotas: crossed.map((c) => ({ region: code(c?.regionId ?? 0), cell: [c?.firstOptionId, c?.secondOptionId], quota: c?.quotaPercent })) } : {}),
    ...(options.length ? { testOptions: options.map((t) => ({ text: t?.conceptText ?? "", ...(t?.conceptDescription ? { description: t.conceptDescription } : {}) })) } : {}),
  };
  const doc = new Document(file);
  doc.commentBefore = ` Project ${p.id}, written by \`ideally projects file ${p.id}\`. Not written: ${NOT_WRITTEN}.`;
  // Each target's answer in words beside its id.
  const seq = doc.get("targets", true);
  if (isSeq(seq)) {
    demographic.forEach((t, i) => {
      const item = seq.items[i];
      const opt = isMap(item) ? item.get("option", true) : undefined;
      const found = targetOptions.find((x) => x.id === t.systemQuestionOptionId);
      if (isScalar(opt) && found) opt.comment = ` ${found.question}: ${found.label}`;
    });
  }
  // Each crossed cell's answers in words beside it.
  const cells = doc.get("crossedQuotas", true);
  if (isSeq(cells)) {
    crossed.forEach((c, i) => {
      const item = cells.items[i];
      const pair = isMap(item) ? item.get("cell", true) : undefined;
      const words = [c?.firstOptionId, c?.secondOptionId].map((id) => targetOptions.find((x) => x.id === id)).map((o) => (o ? `${o.question}: ${o.label}` : "?"));
      if (isSeq(pair)) pair.comment = ` ${words.join(" × ")}`;
    });
  }
  const text = doc.toString({ lineWidth: 0 });
  if (o.output && o.output !== "-") {
    writeFileSync(resolve(o.output), text);
    if (!o.json) process.stderr.write(`Wrote ${o.output} (project ${p.id}). Not written: ${NOT_WRITTEN}.\n`);
    else printJson({ file: o.output, projectId: p.id, targets: demographic.length, notWritten: NOT_WRITTEN });
    return;
  }
  process.stdout.write(text);
}

export interface ApplyOptions extends GlobalOptions {
  from: string;
}

export async function runApply(id: string, o: ApplyOptions): Promise<void> {
  const api = signedIn(o);
  needClient(api);
  const key = idArg(id);
  const { plan, resolved } = await checkFile(api, o.from);
  // The file is the whole truth of the targets: a target without a quota has none, not the stored one.
  const targets = resolved.targets.map((t) => ({ ...t, quotaPercent: t.quotaPercent ?? null, onlyThese: t.onlyThese ?? false }));
  const body = {
    regionIds: resolved.estimate.regionIds,
    ...(plan.project.sampleSize != null ? { sampleSize: plan.project.sampleSize } : {}),
    targets,
    // The file is the whole truth of the crossed cells too: none in the file, none on the draft.
    crossedQuotas: resolved.crossedQuotas,
  };
  const saved = ok(await api.client.POST("/api/v1/Projects({key})/ChangeTargets", { params: { path: { key } }, body }), `setting the targets of project ${id}`);
  const estimate = ok(await api.client.POST("/api/v1/Projects({key})/IncidenceEstimate", { params: { path: { key } }, body: {} }), "estimating feasibility");
  if (o.json) return printJson({ projectId: Number(key), regionIds: body.regionIds, targets: saved.value, feasibility: estimate.explanation });
  process.stdout.write(
    `Applied ${o.from === "-" ? "<stdin>" : o.from} to project ${key}: ${body.regionIds.length} market(s), ${targets.length} target(s). Only the markets, completes and targets are applied.\n${feasibilityText(estimate.explanation)}\n`,
  );
}
