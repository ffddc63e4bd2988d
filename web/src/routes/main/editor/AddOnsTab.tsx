// Add-ons: price sensitivity (Van Westendorp's four price questions per test option, with the
// Newton-Miller-Smith purchase-intent follow-ups) and market reach (TURF over the test options),
// set up, changed and removed through Projects Create/Update/DeletePriceSensitivities and
// Create/Update/DeleteMarketReach. Each adds to the run's cost (shown in the bar below).
import { useEffect, useState, type FormEvent } from "react";
import { ApiError, api } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { Badge, Button, Card, Field, Input, Skeleton } from "../../../components/ui";
import { keyPath, run, useRefreshProject, useTestOptions } from "../../../features/projects-editor/data";
import type { TabProps } from "../ProjectPage";

type PriceSetup = { currencyCode: string; purchaseIntent: boolean; items: { testOptionId: number | null; minPrice: number | null; maxPrice: number | null }[] };
type ReachSetup = { reachDepth: number; maxCombinationSize: number; itemSource: string; items: { label: string }[] };

/** A set-up that may not exist: 404 is "none", not an error. */
function useOptionalSetup<T>(name: string, projectId: number, call: () => Promise<{ data?: T; error?: unknown; response: Response }>) {
  const res = useApi<T>([name, projectId], call, { onError: () => {}, shouldRetryOnError: false });
  const none = res.error instanceof ApiError && res.error.status === 404;
  return { ...res, none, loading: !res.data && !res.error };
}

function PriceSensitivity({ project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const options = useTestOptions(project.id);
  const noOptions = options.data?.value.length === 0;
  const setup = useOptionalSetup<PriceSetup>("PriceSensitivities", project.id, () => api.GET("/api/v1/Projects({key})/PriceSensitivities", { params: keyPath(project.id) }) as never);
  const first = setup.data?.items[0];
  const [min, setMin] = useState("");
  const [max, setMax] = useState("");
  const [intent, setIntent] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setMin(first?.minPrice != null ? String(first.minPrice) : "");
    setMax(first?.maxPrice != null ? String(first.maxPrice) : "");
    setIntent(setup.data?.purchaseIntent ?? false);
  }, [first?.minPrice, first?.maxPrice, setup.data?.purchaseIntent]);
  const currency = project.projectsRegions[0]?.region?.currencyCode ?? "";

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const body = { minPrice: min === "" ? null : Number(min), maxPrice: max === "" ? null : Number(max), purchaseIntent: intent };
    const path = setup.data ? "/api/v1/Projects({key})/UpdatePriceSensitivities" : "/api/v1/Projects({key})/CreatePriceSensitivities";
    const r = await run(api.POST(path, { params: keyPath(project.id), body } as never), [setup.data ? "Price sensitivity updated" : "Price sensitivity added"]);
    setBusy(false);
    if (r !== undefined) await Promise.all([setup.mutate(), refresh()]);
  }
  async function remove() {
    setBusy(true);
    const r = await run(api.POST("/api/v1/Projects({key})/DeletePriceSensitivities", { params: keyPath(project.id), body: {} } as never), ["Price sensitivity removed"]);
    setBusy(false);
    if (r !== undefined) await Promise.all([setup.mutate(undefined, { revalidate: true }), refresh()]);
  }

  return (
    <Card title="Price sensitivity" actions={setup.data ? <Badge tone="green">On</Badge> : setup.none ? <Badge>Off</Badge> : null}>
      <p className="mb-4 text-sm text-ink-600">
        Van Westendorp's four price questions (too cheap, a bargain, getting expensive, too expensive) for every test option; the results show the optimal price and the acceptable range.
      </p>
      {setup.loading ? (
        <Skeleton className="h-24" />
      ) : (
        <form onSubmit={save} className="space-y-4">
          <fieldset disabled={!editable} className="space-y-4">
            <div className="grid grid-cols-2 gap-3">
              <Field id="ps-min" label={`Lowest price (${currency})`}>
                <Input id="ps-min" type="number" min={0} step="0.01" value={min} onChange={(e) => setMin(e.target.value)} />
              </Field>
              <Field id="ps-max" label={`Highest price (${currency})`}>
                <Input id="ps-max" type="number" min={0} step="0.01" value={max} onChange={(e) => setMax(e.target.value)} />
              </Field>
            </div>
            <label className="flex items-center gap-2 text-sm text-ink-800">
              <input type="checkbox" className="size-4" checked={intent} onChange={(e) => setIntent(e.target.checked)} />
              Ask purchase intent at each respondent's bargain and expensive prices (Newton-Miller-Smith)
            </label>
          </fieldset>
          {noOptions && !setup.data ? <p className="text-sm text-amber-800">Add a test option first: prices are asked about test options.</p> : null}
          {editable ? (
            <div className="flex flex-wrap justify-end gap-2">
              {setup.data ? <Button variant="ghost" busy={busy} onClick={() => void remove()}>Remove price sensitivity</Button> : null}
              <Button type="submit" busy={busy} disabled={noOptions && !setup.data}>{setup.data ? "Update price sensitivity" : "Add price sensitivity"}</Button>
            </div>
          ) : null}
        </form>
      )}
    </Card>
  );
}

function MarketReach({ project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const options = useTestOptions(project.id);
  const setup = useOptionalSetup<ReachSetup>("MarketReach", project.id, () => api.GET("/api/v1/Projects({key})/MarketReach", { params: keyPath(project.id) }) as never);
  const [depth, setDepth] = useState("1");
  const [size, setSize] = useState("3");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (setup.data) {
      setDepth(String(setup.data.reachDepth));
      setSize(String(setup.data.maxCombinationSize));
    }
  }, [setup.data]);
  const enough = (options.data?.value.length ?? 0) >= 2;

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const body = { reachDepth: Number(depth), maxCombinationSize: Number(size) };
    const path = setup.data ? "/api/v1/Projects({key})/UpdateMarketReach" : "/api/v1/Projects({key})/CreateMarketReach";
    const r = await run(api.POST(path, { params: keyPath(project.id), body } as never), [setup.data ? "Market reach updated" : "Market reach added"]);
    setBusy(false);
    if (r !== undefined) await Promise.all([setup.mutate(), refresh()]);
  }
  async function remove() {
    setBusy(true);
    const r = await run(api.POST("/api/v1/Projects({key})/DeleteMarketReach", { params: keyPath(project.id), body: {} } as never), ["Market reach removed"]);
    setBusy(false);
    if (r !== undefined) await Promise.all([setup.mutate(undefined, { revalidate: true }), refresh()]);
  }

  return (
    <Card title="Market reach" actions={setup.data ? <Badge tone="green">On</Badge> : setup.none ? <Badge>Off</Badge> : null}>
      <p className="mb-4 text-sm text-ink-600">
        Which combination of test options reaches the most people (TURF): respondents say which they would buy, and the results rank sets by unduplicated reach.
      </p>
      {setup.loading ? (
        <Skeleton className="h-24" />
      ) : (
        <form onSubmit={save} className="space-y-4">
          <fieldset disabled={!editable} className="grid grid-cols-2 gap-3">
            <Field id="mr-depth" label="Reached when accepting at least">
              <Input id="mr-depth" type="number" min={1} max={10} value={depth} onChange={(e) => setDepth(e.target.value)} />
            </Field>
            <Field id="mr-size" label="Largest combination">
              <Input id="mr-size" type="number" min={1} max={20} value={size} onChange={(e) => setSize(e.target.value)} />
            </Field>
          </fieldset>
          {setup.data ? <p className="text-sm text-ink-600">Items: {setup.data.items.map((i) => i.label).join(", ")}</p> : null}
          {!enough && !setup.data ? <p className="text-sm text-amber-800">Add at least two test options first.</p> : null}
          {editable ? (
            <div className="flex flex-wrap justify-end gap-2">
              {setup.data ? <Button variant="ghost" busy={busy} onClick={() => void remove()}>Remove market reach</Button> : null}
              <Button type="submit" busy={busy} disabled={!enough}>{setup.data ? "Update market reach" : "Add market reach"}</Button>
            </div>
          ) : null}
        </form>
      )}
    </Card>
  );
}

export function AddOnsTab(props: TabProps) {
  if (props.project.projectTypeId > 2) {
    return <Card title="Add-ons"><p className="text-sm text-ink-600">Price sensitivity and market reach are for Idea and Message tests.</p></Card>;
  }
  return (
    <div className="grid items-start gap-6 lg:grid-cols-2">
      <PriceSensitivity {...props} />
      <MarketReach {...props} />
    </div>
  );
}
