// Where a waiting project's waves will get their sample, on the approval queue (docs/decisions/0145):
// per market, the simulated panel, the team's own list, or a sample supplier that staff choose here
// before approving. The choice is written on the market's waves that have no run yet (PATCH
// ProjectSchedules sampleSupplierId), so the run the fielding tick makes after approval is the
// supplier's from birth and the simulated panel never answers it.
import { useState } from "react";
import { api, type Row, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Select } from "../../components/ui";
import { SAMPLE_SOURCE_TEXT } from "../../features/fielding";
import { toast } from "../../components/toast";
import { act, forClient, keyPath } from "./shared";

export type Wave = Row<"ProjectSchedules", "id" | "regionId" | "isCustomerPanel" | "sampleSupplierId" | "surveyRunId", { region: Row<"Regions", "regionName"> | null }>;
type Supplier = Schemas["SampleSupplier"];

/** The suppliers a wave may name: not the simulated panel (it answers simulated runs only). */
export function useWaveSuppliers(): Supplier[] {
  const { data } = useApi(["SampleSuppliers"], () => api.GET("/api/v1/SampleSuppliers", {}));
  return (data?.value ?? []).filter((s) => !s.isSimulated);
}

interface Market {
  regionId: number;
  name: string;
  waves: Wave[];
}

function marketsOf(waves: Wave[]): Market[] {
  const out = new Map<number, Market>();
  for (const w of waves) {
    if (w.surveyRunId !== null) continue;
    const m = out.get(w.regionId) ?? { regionId: w.regionId, name: w.region?.regionName ?? `Region ${w.regionId}`, waves: [] };
    m.waves.push(w);
    out.set(w.regionId, m);
  }
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function WaveSample({ project, waves, suppliers, onChanged }: { project: { id: number; clientId: number; projectName: string }; waves: Wave[]; suppliers: Supplier[]; onChanged: () => void }) {
  const [busy, setBusy] = useState<number | null>(null);
  const markets = marketsOf(waves);
  if (markets.length === 0) return null;

  async function choose(m: Market, value: string) {
    const supplierId = value === "" ? null : Number(value);
    setBusy(m.regionId);
    let done = true;
    for (const w of m.waves) {
      const r = await act(api.PATCH("/api/v1/ProjectSchedules({key})", { params: keyPath(w.id), body: { sampleSupplierId: supplierId }, ...forClient(project.clientId) }));
      if (!r) {
        done = false;
        break;
      }
    }
    setBusy(null);
    onChanged();
    if (done) {
      const name = supplierId === null ? `the ${SAMPLE_SOURCE_TEXT.simulated.toLowerCase()}` : (suppliers.find((s) => s.id === supplierId)?.name ?? `supplier ${supplierId}`);
      toast.success("Sample chosen", `${project.projectName} in ${m.name} will be fielded by ${name}.`);
    }
  }

  return (
    <div className="mt-2 flex flex-col gap-1">
      {markets.map((m) => {
        if (m.waves.some((w) => w.isCustomerPanel)) {
          return (
            <p key={m.regionId} className="text-xs text-ink-600">
              Sample in {m.name}: {SAMPLE_SOURCE_TEXT.customer.toLowerCase()}
            </p>
          );
        }
        const current = m.waves[0]!.sampleSupplierId;
        return (
          <div key={m.regionId} className="flex flex-col gap-0.5 text-xs text-ink-600">
            <label htmlFor={`wave-sample-${project.id}-${m.regionId}`}>Sample in {m.name}</label>
            <Select
              id={`wave-sample-${project.id}-${m.regionId}`}
              className="h-8 w-52 max-w-full text-sm"
              aria-label={`Sample of ${project.projectName} in ${m.name}`}
              value={current === null ? "" : String(current)}
              disabled={busy === m.regionId}
              onChange={(e) => void choose(m, e.target.value)}
            >
              <option value="">{SAMPLE_SOURCE_TEXT.simulated}</option>
              {suppliers.map((s) => (
                <option key={s.id} value={String(s.id)}>
                  {s.name}
                </option>
              ))}
            </Select>
          </div>
        );
      })}
    </div>
  );
}
