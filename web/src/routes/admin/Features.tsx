// admin/features: global flags (on for everyone; the Ideally switch for staff only) and one
// client's own setting per flag (on, off, or follow the global switch: ClientFeatures rows).
import { useState } from "react";
import { Badge, Button, Card, PageHeader, Select } from "../../components/ui";
import { toast } from "../../components/toast";
import { api, type Row } from "../../api/client";
import { AuditLog, DataTable, Td, act, forClient, keyPath, ok, useClients, useSet } from "./shared";

type Flag = Row<"FeatureFlags", "id" | "ff" | "description" | "isEnabled" | "isEnabledForStaff">;
type ClientFeature = Row<"ClientFeatures", "id" | "featureFlagId" | "isEnabled">;

export default function Features() {
  const { data, isLoading, mutate } = useSet<Flag>("FeatureFlags", { $orderby: "ff", $top: 500 });
  const { clients } = useClients();
  const [clientId, setClientId] = useState<string>("");
  const cid = clientId ? Number(clientId) : null;
  const { data: rows, mutate: refreshRows } = useSet<ClientFeature>("ClientFeatures", cid ? { $filter: `clientId eq ${cid}`, $top: 500 } : null, cid);
  const [busy, setBusy] = useState<string | null>(null);
  const [audit, setAudit] = useState(0);
  const byFlag = new Map((rows?.value ?? []).map((r) => [r.featureFlagId, r]));

  async function globalSwitch(f: Flag, action: "Enable" | "Disable" | "EnableIdeally" | "DisableIdeally", label: string) {
    setBusy(`${action}-${f.id}`);
    const r = await act(api.POST(`/api/v1/FeatureFlags({key})/${action}`, { params: keyPath(f.id) }), label, f.ff);
    setBusy(null);
    if (r) {
      void mutate();
      setAudit((n) => n + 1);
    }
  }

  async function clientSetting(f: Flag, value: "on" | "off" | "default") {
    if (!cid) return;
    setBusy(`client-${f.id}`);
    const existing = byFlag.get(f.id);
    const saved =
      (!existing || (await ok(api.DELETE("/api/v1/ClientFeatures({key})", { params: keyPath(existing.id), ...forClient(cid) })))) &&
      (value === "default" || (await ok(api.POST("/api/v1/ClientFeatures", { body: { featureFlagId: f.id, isEnabled: value === "on" }, ...forClient(cid) }))));
    setBusy(null);
    if (saved) toast.success("Client flag saved", `${f.ff}: ${value === "default" ? "follows the global switch" : value}`);
    void refreshRows();
    setAudit((n) => n + 1);
  }

  return (
    <div>
      <PageHeader title="Features" subtitle="Feature flags: global switches and each client's own setting" />
      <DataTable
        caption="Feature flags"
        head={["Flag", "Everyone", "Ideally staff", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No feature flags"
        render={(f) => (
          <tr key={f.id}>
            <Td>
              <p className="font-medium text-ink-900">{f.ff}</p>
              <p className="text-xs text-ink-500">{f.description}</p>
            </Td>
            <Td>
              <Badge tone={f.isEnabled ? "green" : "neutral"}>{f.isEnabled ? "On" : "Off"}</Badge>
            </Td>
            <Td>
              <Badge tone={f.isEnabledForStaff ? "green" : "neutral"}>{f.isEnabledForStaff ? "On" : "Off"}</Badge>
            </Td>
            <Td>
              <div className="flex justify-end gap-2 whitespace-nowrap">
                <Button
                  size="sm"
                  variant="secondary"
                  busy={busy === `${f.isEnabled ? "Disable" : "Enable"}-${f.id}`}
                  onClick={() => void globalSwitch(f, f.isEnabled ? "Disable" : "Enable", f.isEnabled ? "Flag off for everyone" : "Flag on for everyone")}
                  aria-label={`${f.isEnabled ? "Disable" : "Enable"} ${f.ff} for everyone`}
                >
                  {f.isEnabled ? "Disable" : "Enable"}
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  busy={busy === `${f.isEnabledForStaff ? "DisableIdeally" : "EnableIdeally"}-${f.id}`}
                  onClick={() => void globalSwitch(f, f.isEnabledForStaff ? "DisableIdeally" : "EnableIdeally", f.isEnabledForStaff ? "Flag off for staff" : "Flag on for staff")}
                  aria-label={`${f.isEnabledForStaff ? "Disable" : "Enable"} for staff: ${f.ff}`}
                >
                  {f.isEnabledForStaff ? "Disable for staff" : "Enable for staff"}
                </Button>
              </div>
            </Td>
          </tr>
        )}
      />
      <Card title="Per client" className="mt-8">
        <div className="mb-4 max-w-sm">
          <label htmlFor="ff-client" className="mb-1.5 block text-sm font-medium text-ink-800">
            Client
          </label>
          <Select id="ff-client" value={clientId} onChange={(e) => setClientId(e.target.value)}>
            <option value="">Choose a client</option>
            {clients?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.tier})
              </option>
            ))}
          </Select>
        </div>
        {cid ? (
          <ul className="divide-y divide-ink-100" aria-label="Client flags">
            {data?.value.map((f) => {
              const row = byFlag.get(f.id);
              const value = row ? (row.isEnabled ? "on" : "off") : "default";
              return (
                <li key={f.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
                  <div>
                    <p className="font-medium text-ink-900">{f.ff}</p>
                    <p className="text-xs text-ink-500">{row ? "Set for this client" : `Follows the global switch (${f.isEnabled ? "on" : "off"})`}</p>
                  </div>
                  <div className="w-full sm:w-56">
                    <label htmlFor={`ff-${f.id}`} className="sr-only">
                      {f.ff} for this client
                    </label>
                    <Select id={`ff-${f.id}`} value={value} disabled={busy === `client-${f.id}`} onChange={(e) => void clientSetting(f, e.target.value as "on" | "off" | "default")}>
                      <option value="default">Follow global</option>
                      <option value="on">On</option>
                      <option value="off">Off</option>
                    </Select>
                  </div>
                </li>
              );
            })}
          </ul>
        ) : (
          <p className="text-sm text-ink-600">Choose a client to see and change its own flag settings.</p>
        )}
      </Card>
      <AuditLog filter="entityType in ('FeatureFlag','ClientFeature')" title="Flag changes" refreshKey={audit} />
    </div>
  );
}
