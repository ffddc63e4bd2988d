// A supplier run's suppliers, each with its share of the run's completes, on the admin surveys page
// (SurveyRuns({key})/SampleAllocations and SetSampleAllocations; docs/decisions/0146): each one's
// cap (its share of the target) and progress, and staff's edit of the shares (summing to 100; the
// first listed is the run's supplier). An entry of a supplier whose cap is met goes back to it over
// quota.
import { useState } from "react";
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Modal } from "../../components/Dialog";
import { Button, Input, Select } from "../../components/ui";
import { DialogTableHead, LoadingRows, Td, act, forClient, keyPath } from "./shared";
import { useWaveSuppliers } from "./WaveSample";

interface Draft {
  sampleSupplierId: number;
  share: string;
}

export function SampleAllocationsDialog({ run, onClose, onSaved }: { run: { id: number; clientId: number }; onClose: () => void; onSaved: () => void }) {
  const { data, isLoading, mutate } = useApi(["SurveyRuns", run.id, "SampleAllocations"], () =>
    api.GET("/api/v1/SurveyRuns({key})/SampleAllocations", { params: keyPath(run.id), ...forClient(run.clientId) }),
  );
  const suppliers = useWaveSuppliers();
  const [draft, setDraft] = useState<Draft[] | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = data?.value ?? [];
  const editing = draft ?? rows.map((a) => ({ sampleSupplierId: a.sampleSupplierId, share: String(a.share) }));
  const total = editing.reduce((s, d) => s + (Number(d.share) || 0), 0);
  const unused = suppliers.filter((s) => !editing.some((d) => d.sampleSupplierId === s.id));

  async function save() {
    setBusy(true);
    const r = await act(
      api.POST("/api/v1/SurveyRuns({key})/SetSampleAllocations", {
        params: keyPath(run.id),
        body: { allocations: editing.map((d) => ({ sampleSupplierId: d.sampleSupplierId, share: Number(d.share) })) },
        ...forClient(run.clientId),
      }),
      "Allocations saved",
      `Run ${run.id}: ${editing.length} supplier${editing.length === 1 ? "" : "s"}`,
    );
    setBusy(false);
    if (r) {
      setDraft(null);
      await mutate();
      onSaved();
    }
  }
  const change = (i: number, patch: Partial<Draft>) => setDraft(editing.map((d, j) => (j === i ? { ...d, ...patch } : d)));

  return (
    <Modal
      open
      size="lg"
      onClose={onClose}
      title={`Suppliers of run ${run.id}`}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
          <Button busy={busy} disabled={editing.length === 0 || Math.round(total * 100) !== 10_000} onClick={() => void save()}>
            Save shares
          </Button>
        </>
      }
    >
      {isLoading ? (
        <LoadingRows label="Loading allocations" rows={2} />
      ) : (
        <div className="space-y-4">
          {rows.length === 0 ? (
            <p className="text-sm text-ink-600">One supplier takes the run's respondents up to its quota. Give shares to field it from several, each up to its share.</p>
          ) : (
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Allocations of run {run.id}</caption>
              <DialogTableHead heads={["Supplier", "Share", "Cap", "Completes", "Answering"]} />
              <tbody className="divide-y divide-ink-100">
                {rows.map((a) => (
                  <tr key={a.sampleSupplierId}>
                    <Td className="font-medium text-ink-900">{a.supplierName}</Td>
                    <Td>{a.share}%</Td>
                    <Td>{a.cap}</Td>
                    <Td>{a.completes >= a.cap ? `${a.completes} (cap met)` : a.completes}</Td>
                    <Td>{a.inProgress}</Td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-ink-900">Shares</legend>
            {editing.map((d, i) => (
              <div key={d.sampleSupplierId} className="flex items-center gap-2">
                <Select aria-label={`Supplier ${i + 1}`} value={String(d.sampleSupplierId)} onChange={(e) => change(i, { sampleSupplierId: Number(e.target.value) })}>
                  {suppliers
                    .filter((s) => s.id === d.sampleSupplierId || !editing.some((x) => x.sampleSupplierId === s.id))
                    .map((s) => (
                      <option key={s.id} value={String(s.id)}>
                        {s.name}
                      </option>
                    ))}
                </Select>
                <div className="w-24 shrink-0">
                  <Input aria-label={`Share of supplier ${i + 1} (%)`} inputMode="decimal" value={d.share} onChange={(e) => change(i, { share: e.target.value })} />
                </div>
                <span className="text-sm text-ink-600">%</span>
                <Button size="sm" variant="ghost" onClick={() => setDraft(editing.filter((_, j) => j !== i))} aria-label={`Remove supplier ${i + 1}`}>
                  Remove
                </Button>
              </div>
            ))}
            <div className="flex items-center gap-3">
              {unused.length ? (
                <Button size="sm" variant="secondary" onClick={() => setDraft([...editing, { sampleSupplierId: unused[0]!.id, share: "" }])}>
                  Add a supplier
                </Button>
              ) : null}
              <span className="text-sm text-ink-600" aria-live="polite">
                Total {total.toFixed(2)}%{Math.round(total * 100) === 10_000 ? "" : " (the shares must sum to 100%)"}
              </span>
            </div>
          </fieldset>
        </div>
      )}
    </Modal>
  );
}
