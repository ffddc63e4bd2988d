// `ideally admin waves PROJECT [--supplier ID|none] [--region ID]`: a project's waves (its
// schedules, one per market and date) with where each one's sample will come from, and staff's
// choice of a sample supplier for the waves that have no run yet (PATCH ProjectSchedules
// sampleSupplierId; docs/decisions/0145). Chosen while the project awaits approval, the run the
// fielding tick makes is the supplier's from birth; once a wave has its run, its source is the
// run's (the API answers 409). Staff only (exit 2 otherwise); listing reads SchedulingState.
import type { Schemas } from "@ideally/contracts";
import { idArg } from "../../args.ts";
import { apiError, usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { describeError, ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";

type Wave = Schemas["ProjectScheduleState"] & { regionName: string };

export interface WavesOptions extends GlobalOptions {
  supplier?: string;
  region?: string;
}

/** --supplier: a supplier's id, or `none` for the project's own panel. */
export function supplierChoice(v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === "none") return null;
  return Number(idArg(v, "supplier id (`ideally api /api/v1/SampleSuppliers`) or none"));
}

async function wavesOf(api: Api, key: string, project: string): Promise<Wave[]> {
  const state = ok(await api.client.GET("/api/v1/Projects({key})/SchedulingState", { params: { path: { key } } }), `reading project ${project}'s waves`);
  return state.regions.flatMap((r) => [...r.past, ...r.upcoming].map((w) => ({ ...w, regionName: r.regionName })));
}

function sampleOf(w: Wave, names: Map<number, string>): string {
  if (w.sampleSupplierId !== null) return `supplier ${w.sampleSupplierId}${names.has(w.sampleSupplierId) ? ` (${names.get(w.sampleSupplierId)})` : ""}`;
  return w.isCustomerPanel ? "customer list" : "simulated panel";
}

export async function runWaves(project: string, o: WavesOptions): Promise<void> {
  const key = idArg(project);
  const supplier = supplierChoice(o.supplier);
  const region = o.region === undefined ? null : Number(idArg(o.region, "region id"));
  if (region !== null && supplier === undefined) throw usageError("--region chooses the market whose waves --supplier sets; give --supplier too");
  const api = signedIn(o, { tenant: false });
  // Staff's, checked before anything is read or written (a team member reads waves in the web app).
  const me = ok(await api.client.GET("/api/v1/Users/Me", {}), "reading the account");
  if (!me.isStaff) {
    throw apiError(
      `${supplier === undefined ? `list project ${project}'s waves` : `set the sample of project ${project}'s waves`}: a wave's sample is chosen by provider staff; ${api.session.email} is not staff`,
    );
  }
  let waves = await wavesOf(api, key, project);
  if (supplier !== undefined) {
    const open = waves.filter((w) => w.surveyRunId === null && (region === null || w.regionId === region));
    if (open.length === 0) {
      throw apiError(
        `Project ${project} has no wave without a run${region === null ? "" : ` in region ${region}`}: a run's suppliers are set on the run (\`ideally admin runs allocations RUN --set ID=100\`)`,
      );
    }
    for (const w of open) {
      const r = await api.client.PATCH("/api/v1/ProjectSchedules({key})", { params: { path: { key: String(w.id) } }, body: { sampleSupplierId: supplier } });
      if (r.error !== undefined || !r.response.ok) throw apiError(`set the sample of wave ${w.id} (${w.regionName}, ${w.scheduleDate}): ${describeError(r.error, r.response)}`);
    }
    waves = await wavesOf(api, key, project);
    if (!o.json) {
      process.stderr.write(
        `${open.length} wave${open.length === 1 ? "" : "s"} of project ${project} now ${supplier === null ? "on the project's own panel" : `fielded by supplier ${supplier}`}; the runs made from them carry it\n`,
      );
    }
  }
  if (o.json) return printJson(waves);
  if (waves.length === 0) {
    process.stdout.write(`Project ${project} has no waves (they are made when it is submitted)\n`);
    return;
  }
  const names = new Map<number, string>();
  if (waves.some((w) => w.sampleSupplierId !== null)) {
    const s = await api.client.GET("/api/v1/SampleSuppliers", {});
    for (const x of s.data?.value ?? []) names.set(x.id, x.name);
  }
  process.stdout.write(
    `${table(
      ["wave", "id", "market", "date", "sample", "run"],
      waves.map((w) => [String(w.waveNumber ?? ""), String(w.id), w.regionName, w.scheduleDate, sampleOf(w, names), w.surveyRunId === null ? w.launchState : String(w.surveyRunId)]),
    )}\n`,
  );
}
