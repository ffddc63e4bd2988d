// A supplier run's server-to-server callbacks on the admin surveys page (SurveyRuns({key})/
// SupplierCallbacks; docs/suppliers.md): each rid's outcome or reversal with its state, series,
// attempts and last answer, and Resend beside a failed one (SupplierCallbacks/{callbackId}/Resend:
// pending again for a fresh series of 8 attempts, the attempts so far kept).
import { useState } from "react";
import { api, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Modal } from "../../components/Dialog";
import { Badge, Button } from "../../components/ui";
import { DialogTableHead, LoadingRows, Td, act, fmtDate, forClient, keyPath } from "./shared";

type Callback = Schemas["SupplierCallback"];
const TONES: Record<Callback["state"], "blue" | "green" | "red"> = { pending: "blue", delivered: "green", failed: "red" };

/** The last answer a callback got: its HTTP status, or the network error. */
function lastAnswer(c: Callback): string {
  const a = c.attempts.at(-1);
  if (!a) return "—";
  return a.httpStatus !== null ? `HTTP ${a.httpStatus}` : (a.error ?? "no answer");
}

export function SupplierCallbacksDialog({ run, onClose, onResent }: { run: { id: number; clientId: number }; onClose: () => void; onResent: () => void }) {
  const { data, isLoading, mutate } = useApi(["SurveyRuns", run.id, "SupplierCallbacks"], () =>
    api.GET("/api/v1/SurveyRuns({key})/SupplierCallbacks", { params: keyPath(run.id), ...forClient(run.clientId) }),
  );
  const [busy, setBusy] = useState<number | null>(null);
  async function resend(c: Callback) {
    setBusy(c.id);
    const r = await act(
      api.POST("/api/v1/SurveyRuns({key})/SupplierCallbacks/{callbackId}/Resend", { params: { path: { key: String(run.id), callbackId: String(c.id) } }, ...forClient(run.clientId) }),
      "Callback sent again",
      `rid ${c.rid}: series ${c.series + 1}, sent now`,
    );
    setBusy(null);
    if (r) {
      await mutate();
      onResent();
    }
  }
  const rows = data?.value ?? [];
  return (
    <Modal
      open
      size="lg"
      onClose={onClose}
      title={`Supplier callbacks of run ${run.id}`}
      footer={
        <>
          <Button variant="secondary" onClick={() => void mutate()}>
            Refresh
          </Button>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
        </>
      }
    >
      {isLoading ? (
        <LoadingRows label="Loading callbacks" rows={3} />
      ) : rows.length === 0 ? (
        <p className="text-sm text-ink-600">No callbacks: the supplier has no callback URL, or no respondent has finished.</p>
      ) : (
        <div className="max-h-[60vh] overflow-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Supplier callbacks</caption>
            <DialogTableHead heads={["Rid", "Outcome", "State", "Attempts", "Last answer", ""]} />
            <tbody className="divide-y divide-ink-100">
              {rows.map((c) => (
                <tr key={c.id} data-testid={`callback-${c.id}`}>
                  <Td className="font-medium text-ink-900">{c.rid}</Td>
                  <Td className="whitespace-nowrap">{c.kind === "reversal" ? `reversal to ${c.outcome}` : c.outcome}</Td>
                  <Td>
                    <Badge tone={TONES[c.state]}>{c.state}</Badge>
                    <p className="mt-0.5 text-xs text-ink-500">{c.state === "delivered" ? fmtDate(c.deliveredAt) : c.nextAttemptAt ? `next ${fmtDate(c.nextAttemptAt)}` : ""}</p>
                  </Td>
                  <Td className="whitespace-nowrap">
                    {c.attempts.length}
                    {c.series > 1 ? <p className="text-xs text-ink-500">series {c.series}</p> : null}
                  </Td>
                  <Td className="max-w-48 truncate">{lastAnswer(c)}</Td>
                  <Td>
                    {c.state === "failed" ? (
                      <Button size="sm" variant="secondary" busy={busy === c.id} onClick={() => void resend(c)} aria-label={`Resend the callback of rid ${c.rid}`}>
                        Resend
                      </Button>
                    ) : null}
                  </Td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Modal>
  );
}
