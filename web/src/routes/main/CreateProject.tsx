// Create a project: type, framework (those that fit the type), name, markets. The editor takes it
// from there (test options, questions, targets, add-ons, schedule, cost).
import { useMemo, useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { ApiError, api, selected, unwrap, type Page, type Row } from "../../api/client";
import type { Region } from "../../features/projects-editor/data";
import { useApi } from "../../api/hooks";
import type { CurrentClient } from "../../state/client";
import { Modal } from "../../components/Dialog";
import { Button, Field, Input, Select } from "../../components/ui";
import { PROJECT_TYPES } from "../../lib/constants";
import { useMe } from "../../state/app";
import { MARKET_REACH_FRAMEWORK, offersMarketReach } from "../../features/projects-editor/data";

type Framework = Row<"Frameworks", "id" | "title" | "projectTypeId" | "description" | "sortOrder">;

export function useFrameworks() {
  return useApi(["Frameworks"], () => selected<Page<Framework>>(api.GET("/api/v1/Frameworks", { params: { query: { $orderby: "sortOrder", $top: 100 } } })));
}

export function useRegions() {
  return useApi(["Regions"], () =>
    selected<Page<Region>>(api.GET("/api/v1/Regions", { params: { query: { $select: "id,regionName,currencyCode,isUsState,parentRegionId", $orderby: "sortOrder,regionName", $top: 200 } } })),
  );
}

export function CreateProjectDialog({ client, onClose }: { client: CurrentClient; onClose: () => void }) {
  const [, navigate] = useLocation();
  const { data: frameworks } = useFrameworks();
  const { data: regions } = useRegions();
  const [typeId, setTypeId] = useState(1);
  const [frameworkId, setFrameworkId] = useState<number | null>(null);
  const [name, setName] = useState("");
  const [regionIds, setRegionIds] = useState<number[]>([]);
  const [sampleSize, setSampleSize] = useState("200");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { data: me } = useMe(client.id);
  const reach = offersMarketReach(me);
  // Market reach only where its results can be seen (the MarketReach flag).
  const fits = useMemo(() => (frameworks?.value ?? []).filter((f) => f.projectTypeId === typeId && f.id !== 3998 && (reach || f.id !== MARKET_REACH_FRAMEWORK)), [frameworks, typeId, reach]);
  const chosenFramework = frameworkId && fits.some((f) => f.id === frameworkId) ? frameworkId : (fits[0]?.id ?? null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!chosenFramework) return;
    setBusy(true);
    setError(null);
    try {
      const p = (await unwrap(
        api.POST("/api/v1/Projects", {
          body: { projectName: name.trim(), projectTypeId: typeId as 1, frameworkId: chosenFramework, ...(regionIds.length ? { regionIds } : {}), sampleSize: Number(sampleSize) || 200 },
        }),
      )) as { id: number };
      onClose();
      navigate(`~/${client.id}/projects/${p.id}`);
    } catch (err) {
      setError(err instanceof ApiError ? err.errors?.map((x) => x.message).join("; ") || err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  const markets = (regions?.value ?? []).filter((r) => !r.isUsState);
  return (
    <Modal
      open
      onClose={onClose}
      title="New project"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form="create-project" busy={busy} disabled={!name.trim() || !chosenFramework}>
            Create project
          </Button>
        </>
      }
    >
      <form id="create-project" onSubmit={submit} className="space-y-4">
        {error ? (
          <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
            {error}
          </p>
        ) : null}
        <fieldset>
          <legend className="mb-1.5 text-sm font-medium text-ink-800">What are you testing?</legend>
          <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
            {Object.entries(PROJECT_TYPES).map(([id, label]) => (
              <label
                key={id}
                className={`flex cursor-pointer items-center justify-center rounded-lg px-3 py-2 text-sm font-medium ring-1 ${typeId === Number(id) ? "bg-brand-50 text-brand-800 ring-brand-400" : "ring-ink-200 hover:bg-ink-50"}`}
              >
                <input type="radio" name="projectType" value={id} className="sr-only" checked={typeId === Number(id)} onChange={() => setTypeId(Number(id))} />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
        <Field id="framework" label="Framework">
          <Select id="framework" value={chosenFramework ?? ""} onChange={(e) => setFrameworkId(Number(e.target.value))}>
            {fits.map((f) => (
              <option key={f.id} value={f.id}>
                {f.title}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="project-name" label="Project name">
          <Input id="project-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required placeholder="e.g. Summer drinks range" autoFocus />
        </Field>
        <fieldset>
          <legend className="mb-1.5 text-sm font-medium text-ink-800">Markets</legend>
          <div className="flex flex-wrap gap-2">
            {markets.map((r) => {
              const on = regionIds.includes(r.id);
              return (
                <label key={r.id} className={`cursor-pointer rounded-full px-3 py-1 text-sm ring-1 ${on ? "bg-brand-600 text-white ring-brand-600" : "text-ink-700 ring-ink-200 hover:bg-ink-50"}`}>
                  <input type="checkbox" className="sr-only" checked={on} onChange={() => setRegionIds(on ? regionIds.filter((x) => x !== r.id) : [...regionIds, r.id])} />
                  {r.regionName}
                </label>
              );
            })}
          </div>
          <p className="mt-1 text-xs text-ink-500">None chosen: the team's default market. You can change markets and targets in the editor.</p>
        </fieldset>
        <Field id="sample-size" label="Completes per market" hint="Each wave, in each market. Beyond 200 completes cost 1.5 times as much (boosted sample).">
          <Input id="sample-size" type="number" min={1} max={100000} value={sampleSize} onChange={(e) => setSampleSize(e.target.value)} required />
        </Field>
      </form>
    </Modal>
  );
}
