// Add-ons: price sensitivity (Van Westendorp's four price questions per test option, with the
// Newton-Miller-Smith purchase-intent follow-ups) and market reach (TURF over the test options),
// set up, changed and removed through Projects Create/Update/DeletePriceSensitivities and
// Create/Update/DeleteMarketReach. Each adds to the run's cost (shown in the bar below).
import { useEffect, useState, type FormEvent } from "react";
import { ApiError, api, type Schemas } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { Badge, Button, Card, Field, Input, Skeleton } from "../../../components/ui";
import { keyPath, offersMarketReach, run, useRefreshProject, useTestOptions } from "../../../features/projects-editor/data";
import { useMe } from "../../../state/app";
import type { TabProps } from "./shared";

/** Each add-on's four calls, typed by the contract. */
const ADD_ONS = {
  PriceSensitivities: {
    name: "PriceSensitivities",
    label: "Price sensitivity",
    get: (id: number) => api.GET("/api/v1/Projects({key})/PriceSensitivities", { params: keyPath(id) }),
    Create: (id: number, body: Schemas["PriceSensitivitiesBody"]) => api.POST("/api/v1/Projects({key})/CreatePriceSensitivities", { params: keyPath(id), body }),
    Update: (id: number, body: Schemas["PriceSensitivitiesBody"]) => api.POST("/api/v1/Projects({key})/UpdatePriceSensitivities", { params: keyPath(id), body }),
    Delete: (id: number) => api.POST("/api/v1/Projects({key})/DeletePriceSensitivities", { params: keyPath(id) }),
  },
  MarketReach: {
    name: "MarketReach",
    label: "Market reach",
    get: (id: number) => api.GET("/api/v1/Projects({key})/MarketReach", { params: keyPath(id) }),
    Create: (id: number, body: Schemas["MarketReachBody"]) => api.POST("/api/v1/Projects({key})/CreateMarketReach", { params: keyPath(id), body }),
    Update: (id: number, body: Schemas["MarketReachBody"]) => api.POST("/api/v1/Projects({key})/UpdateMarketReach", { params: keyPath(id), body }),
    Delete: (id: number) => api.POST("/api/v1/Projects({key})/DeleteMarketReach", { params: keyPath(id) }),
  },
};

type AddOn<T, B> = {
  name: string;
  label: string;
  get: (id: number) => Promise<{ data?: T; error?: unknown; response: Response }>;
  Create: (id: number, body: B) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  Update: (id: number, body: B) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  Delete: (id: number) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
};

/**
 * One add-on's set-up (404 is "none", not an error) and its three actions: Create{name} when there
 * is none, Update{name} when there is, Delete{name}; each refetches the project (and so the cost).
 */
function useAddOn<T, B>(addOn: AddOn<T, B>, projectId: number) {
  const refresh = useRefreshProject(projectId);
  const res = useApi([addOn.name, projectId], () => addOn.get(projectId), { onError: () => {}, shouldRetryOnError: false });
  const [busy, setBusy] = useState(false);
  const label = addOn.label;
  async function act(call: Promise<{ data?: unknown; error?: unknown; response: Response }>, action: "Create" | "Update" | "Delete", done: string) {
    setBusy(true);
    const r = await run(call, [done]);
    setBusy(false);
    // After a delete the refetch answers 404, and swr keeps stale data on an error: clear it first.
    if (r !== undefined) await Promise.all([action === "Delete" ? res.mutate(undefined, { revalidate: true }) : res.mutate(), refresh()]);
  }
  return {
    ...res,
    busy,
    none: res.error instanceof ApiError && res.error.status === 404,
    loading: !res.data && !res.error,
    save: (body: B) => (res.data ? act(addOn.Update(projectId, body), "Update", `${label} updated`) : act(addOn.Create(projectId, body), "Create", `${label} added`)),
    remove: () => act(addOn.Delete(projectId), "Delete", `${label} removed`),
  };
}

function PriceSensitivity({ project, editable }: TabProps) {
  const options = useTestOptions(project.id);
  const noOptions = options.data?.value.length === 0;
  const setup = useAddOn(ADD_ONS.PriceSensitivities, project.id);
  const first = setup.data?.items[0];
  const [min, setMin] = useState("");
  const [max, setMax] = useState("");
  const [intent, setIntent] = useState(false);
  useEffect(() => {
    setMin(first?.minPrice != null ? String(first.minPrice) : "");
    setMax(first?.maxPrice != null ? String(first.maxPrice) : "");
    setIntent(setup.data?.purchaseIntent ?? false);
  }, [first?.minPrice, first?.maxPrice, setup.data?.purchaseIntent]);
  const currency = project.projectsRegions[0]?.region?.currencyCode ?? "";

  function save(e: FormEvent) {
    e.preventDefault();
    void setup.save({ minPrice: min === "" ? null : Number(min), maxPrice: max === "" ? null : Number(max), purchaseIntent: intent });
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
              {setup.data ? (
                <Button variant="ghost" busy={setup.busy} onClick={() => void setup.remove()}>
                  Remove price sensitivity
                </Button>
              ) : null}
              <Button type="submit" busy={setup.busy} disabled={noOptions && !setup.data}>
                {setup.data ? "Update price sensitivity" : "Add price sensitivity"}
              </Button>
            </div>
          ) : null}
        </form>
      )}
    </Card>
  );
}

function MarketReach({ project, editable }: TabProps) {
  const options = useTestOptions(project.id);
  const setup = useAddOn(ADD_ONS.MarketReach, project.id);
  const [depth, setDepth] = useState("1");
  const [size, setSize] = useState("3");
  useEffect(() => {
    if (setup.data) {
      setDepth(String(setup.data.reachDepth));
      setSize(String(setup.data.maxCombinationSize));
    }
  }, [setup.data]);
  const enough = (options.data?.value.length ?? 0) >= 2;

  function save(e: FormEvent) {
    e.preventDefault();
    void setup.save({ reachDepth: Number(depth), maxCombinationSize: Number(size) });
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
              {setup.data ? (
                <Button variant="ghost" busy={setup.busy} onClick={() => void setup.remove()}>
                  Remove market reach
                </Button>
              ) : null}
              <Button type="submit" busy={setup.busy} disabled={!enough}>
                {setup.data ? "Update market reach" : "Add market reach"}
              </Button>
            </div>
          ) : null}
        </form>
      )}
    </Card>
  );
}

export function AddOnsTab(props: TabProps) {
  const { data: me } = useMe(props.client.id);
  if (props.project.projectTypeId > 2) {
    return (
      <Card title="Add-ons">
        <p className="text-sm text-ink-600">Price sensitivity and market reach are for Idea and Message tests.</p>
      </Card>
    );
  }
  return (
    <div className="grid items-start gap-6 lg:grid-cols-2">
      <PriceSensitivity {...props} />
      {offersMarketReach(me) ? <MarketReach {...props} /> : null}
    </div>
  );
}
