// PowerPoint exports (SPEC 7 Projects PowerPointExport, Clients RenewalPowerPointExport): decks of
// native chart objects (pptxgenjs writes real chart parts with their data, which PowerPoint can
// edit), built from the same results functions the API answers, run as queued jobs with progress,
// stored in export_files and downloaded through the calls that started them.
import PptxGenJS from "pptxgenjs";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { defineJob, type JobContext } from "../../jobs/workers.ts";
import type { ResponseFilter } from "./filters.ts";
import { qualResults } from "./results.service.ts";
import { marketReachResults, priceSensitivityResults } from "./analysis.service.ts";
import { fileName } from "./exports.service.ts";
import * as q from "./results.sql.ts";

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const COLORS = ["4F46E5", "0EA5E9", "F59E0B", "10B981", "EF4444", "8B5CF6", "14B8A6", "F97316"];

export interface ProjectDeckInput {
  kind: "ProjectPowerPoint";
  projectId: number;
  clientId: number;
  userId: number;
  isStaff: boolean;
  filters: ResponseFilter;
  benchmarkTypeId: number | null;
}
export interface RenewalDeckInput {
  kind: "RenewalPowerPoint";
  clientId: number;
  userId: number;
  isStaff: boolean;
}
export type DeckInput = ProjectDeckInput | RenewalDeckInput;

const ctxOf = (i: DeckInput): RequestCtx => ({ principal: { userId: i.userId, isStaff: i.isStaff, isSuperAdmin: false }, clientId: i.clientId, descendants: false, sessionId: null });

function title(pptx: PptxGenJS, heading: string, sub: string) {
  const s = pptx.addSlide();
  s.background = { color: "14213D" };
  s.addText(heading, { x: 0.6, y: 2.0, w: 12, h: 1.2, fontSize: 36, bold: true, color: "FFFFFF" });
  s.addText(sub, { x: 0.6, y: 3.2, w: 12, h: 0.6, fontSize: 16, color: "C7D2FE" });
}

/** The project deck: a top-2-box chart per measure group, price curves, reach; every number from the results functions. */
export async function projectDeck(db: Db, i: ProjectDeckInput, progress: (pct: number, m: string) => Promise<void>): Promise<{ fileName: string; body: Uint8Array; charts: number }> {
  const ctx = ctxOf(i);
  const head = await enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ name: string }[]>`select project_name as name from projects where id = ${i.projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${i.projectId}`);
    return { name: p.name, options: await q.testOptions(tx, i.projectId) };
  });
  const pptx = new PptxGenJS();
  pptx.layout = "LAYOUT_WIDE";
  title(pptx, head.name, "Results: weighted top-2-box by test option");
  await progress(20, "computing results");
  const qual = await qualResults(db, ctx, { projectId: i.projectId, filters: i.filters, benchmarkTypeId: i.benchmarkTypeId });
  const name = (id: number | null) => (id === null ? "All" : (head.options.find((o) => o.id === id)?.conceptText ?? String(id)));
  let charts = 0;
  const optionIds = [...new Set(qual.measures.flatMap((m) => m.results.map((r) => r.testOptionId)))];
  if (qual.measures.length) {
    const s = pptx.addSlide();
    s.addText("Top-2-box by measure", { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    const data = optionIds.map((id) => ({
      name: name(id),
      labels: qual.measures.map((m) => m.title),
      values: qual.measures.map((m) => +(((m.results.find((r) => r.testOptionId === id)?.top2 ?? 0) * 100).toFixed(1))),
    }));
    s.addChart(pptx.ChartType.bar, data, {
      x: 0.5, y: 1.1, w: 12.3, h: 5.8, barDir: "col", barGrouping: "clustered", chartColors: COLORS.slice(0, data.length),
      showLegend: true, legendPos: "b", showValue: true, dataLabelFormatCode: "0.0", valAxisMaxVal: 100, valAxisTitle: "Top-2-box %", showValAxisTitle: true,
    });
    charts++;
  }
  await progress(50, "price sensitivity and reach");
  const price = await priceSensitivityResults(db, ctx, i.projectId, i.filters).catch(() => null);
  for (const r of price?.value ?? []) {
    if (!r.curves || !r.curves.price.length) continue;
    const s = pptx.addSlide();
    s.addText(`Price sensitivity: ${r.conceptText ?? "all"}`, { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    const labels = r.curves.price.map((p) => p.toFixed(2));
    const line = (n: string, v: number[]) => ({ name: n, labels, values: v.map((x) => +(x * 100).toFixed(1)) });
    s.addChart(pptx.ChartType.line, [line("Too cheap", r.curves.tooCheap), line("Cheap", r.curves.cheap), line("Expensive", r.curves.expensive), line("Too expensive", r.curves.tooExpensive)], {
      x: 0.5, y: 1.1, w: 8.5, h: 5.6, chartColors: COLORS.slice(0, 4), showLegend: true, legendPos: "b", valAxisTitle: "% of respondents", showValAxisTitle: true, catAxisTitle: `Price (${price?.currencyCode ?? ""})`, showCatAxisTitle: true,
    });
    charts++;
    const fmt = (x: number | null) => (x === null ? "–" : `${price?.currencySymbol ?? ""}${x.toFixed(2)}`);
    s.addText(
      [
        { text: `Optimal price: ${fmt(r.opp)}\n`, options: { bold: true } },
        { text: `Indifference price: ${fmt(r.ipp)}\n` },
        { text: `Acceptable range: ${fmt(r.pmc)} – ${fmt(r.pme)}\n` },
        { text: `Respondents: ${r.n} (${r.invalid} inconsistent left out)` },
      ],
      { x: 9.2, y: 1.4, w: 3.8, h: 3, fontSize: 14, color: "14213D" },
    );
  }
  const reach = await marketReachResults(db, ctx, i.projectId, i.filters).catch(() => null);
  if (reach && reach.byK.length) {
    const s = pptx.addSlide();
    s.addText("Market reach (TURF)", { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    const best = reach.byK.map((k) => k.sets[0]!).filter(Boolean);
    s.addChart(pptx.ChartType.bar, [{ name: "Reach %", labels: best.map((b) => b.items.join(" + ")), values: best.map((b) => +(b.reach * 100).toFixed(1)) }], {
      x: 0.5, y: 1.1, w: 12.3, h: 5.8, barDir: "bar", chartColors: [COLORS[0]!], showValue: true, dataLabelFormatCode: "0.0", valAxisMaxVal: 100, valAxisTitle: "Reach %", showValAxisTitle: true,
    });
    charts++;
  }
  await progress(80, "writing the deck");
  const body = new Uint8Array((await pptx.write({ outputType: "arraybuffer" })) as ArrayBuffer);
  return { fileName: fileName(head.name, "pptx"), body, charts };
}

/** The renewal deck: what a client ran this year, its credits, and its projects' respondents. */
export async function renewalDeck(db: Db, i: RenewalDeckInput, progress: (pct: number, m: string) => Promise<void>): Promise<{ fileName: string; body: Uint8Array; charts: number }> {
  const data = await enterTenant(db, { ...ctxOf(i), clientId: null, principal: { userId: i.userId, isStaff: true, isSuperAdmin: false } }, async (tx) => {
    const [c] = await tx<{ name: string }[]>`select name from clients where id = ${i.clientId}`;
    if (!c) throw new ApiError("NotFound", `No client ${i.clientId}`);
    const projects = await tx<{ name: string; respondents: number; completedAt: string | null }[]>`
      select p.project_name as name, (select count(*)::int from project_survey_sessions s where s.project_id = p.id) as respondents,
             to_json(p.completed_at)#>>'{}' as "completedAt"
      from projects p where p.client_id = ${i.clientId} and p.deleted_at is null and p.status_code >= 800
      order by p.completed_at nulls last, p.id limit 30`;
    const months = await tx<{ month: string; spent: number }[]>`
      select to_char(date_trunc('month', created_at), 'YYYY-MM') as month, -sum(credit_amount)::float8 as spent
      from credit_logs where client_id = ${i.clientId} and credit_amount < 0 and created_at > now() - interval '12 months'
      group by 1 order by 1`;
    return { name: c.name, projects, months };
  });
  await progress(40, "charting usage");
  const pptx = new PptxGenJS();
  pptx.layout = "LAYOUT_WIDE";
  title(pptx, `${data.name}: the year with Ideally`, `${data.projects.length} completed projects`);
  let charts = 0;
  if (data.projects.length) {
    const s = pptx.addSlide();
    s.addText("Respondents per project", { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    s.addChart(pptx.ChartType.bar, [{ name: "Respondents", labels: data.projects.map((p) => p.name), values: data.projects.map((p) => p.respondents) }], {
      x: 0.5, y: 1.1, w: 12.3, h: 5.8, barDir: "bar", chartColors: [COLORS[0]!], showValue: true, valAxisTitle: "Respondents", showValAxisTitle: true,
    });
    charts++;
  }
  if (data.months.length) {
    const s = pptx.addSlide();
    s.addText("Credits spent per month", { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    s.addChart(pptx.ChartType.bar, [{ name: "Credits", labels: data.months.map((m) => m.month), values: data.months.map((m) => m.spent) }], {
      x: 0.5, y: 1.1, w: 12.3, h: 5.8, barDir: "col", chartColors: [COLORS[1]!], showValue: true, valAxisTitle: "Credits", showValAxisTitle: true,
    });
    charts++;
  }
  const body = new Uint8Array((await pptx.write({ outputType: "arraybuffer" })) as ArrayBuffer);
  return { fileName: fileName(`${data.name}-renewal`, "pptx"), body, charts };
}

async function store(tx: Tx, i: DeckInput, jobId: string, f: { fileName: string; body: Uint8Array }): Promise<string> {
  const [r] = await tx<{ id: string }[]>`
    insert into export_files (client_id, project_id, created_by_user_id, kind, job_id, file_name, content_type, size_bytes, body)
    values (${i.clientId}, ${i.kind === "ProjectPowerPoint" ? i.projectId : null}, ${i.userId}, ${i.kind}, ${jobId}, ${f.fileName}, ${PPTX}, ${f.body.byteLength}, ${f.body})
    on conflict (job_id) where job_id is not null do update set body = excluded.body, size_bytes = excluded.size_bytes
    returning id::text`;
  return r!.id;
}

/** The job: build the deck, keep it (once per job: a retry replaces its own file), answer where to download it. */
export const powerPointJob = defineJob<DeckInput>(
  "exports.powerpoint",
  async (job: JobContext<DeckInput>) => {
    const i = job.data;
    const progress = (pct: number, m: string) => job.progress(pct, m);
    const deck = i.kind === "ProjectPowerPoint" ? await projectDeck(job.db, i, progress) : await renewalDeck(job.db, i, progress);
    const id = await enterTenant(job.db, { principal: { userId: i.userId, isStaff: true, isSuperAdmin: false }, clientId: null, descendants: false, sessionId: null }, (tx) => store(tx, i, job.jobId, deck));
    const download = i.kind === "ProjectPowerPoint" ? `/api/v1/Projects(${i.projectId})/PowerPointExport/${id}` : `/api/v1/Clients(${i.clientId})/RenewalPowerPointExport/${id}`;
    return { exportId: id, fileName: deck.fileName, sizeBytes: deck.body.byteLength, charts: deck.charts, download };
  },
  { retryLimit: 2, retryDelay: 5, expireInSeconds: 600 },
);

/** A stored deck, for its client's members (RLS keeps other clients' out). */
export async function download(db: Db, ctx: RequestCtx, id: string, owner: { projectId?: number; clientId?: number }) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new ApiError("NotFound", "No such export");
  return enterTenant(db, ctx, async (tx) => {
    const [f] = await tx<{ fileName: string; contentType: string; body: Uint8Array }[]>`
      select file_name as "fileName", content_type as "contentType", body from export_files
      where id = ${id}::uuid and expires_at > now()
        and (${owner.projectId ?? null}::int is null or project_id = ${owner.projectId ?? null}::int)
        and (${owner.clientId ?? null}::int is null or client_id = ${owner.clientId ?? null}::int)`;
    if (!f) throw new ApiError("NotFound", "No such export (exports are kept for 7 days)");
    return f;
  });
}
