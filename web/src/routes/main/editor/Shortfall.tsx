// A design the panel cannot fill (ReadinessCheck's `shortfall`, the same estimate as the markets
// tab): what each market can deliver, the field period and the refund rule, and the explicit
// acceptance that Submit needs (`acceptShortfall`) before credits are set aside for it anyway.
import type { Schemas } from "../../../api/client";

export type ShortfallStatement = Schemas["ShortfallStatement"];

/** The statement, with a checkbox to accept it when `onAccept` is given (read-only otherwise). */
export function ShortfallNotice({ shortfall, accepted, onAccept, label }: { shortfall: ShortfallStatement; accepted?: boolean; onAccept?: (accepted: boolean) => void; label?: string }) {
  return (
    <section aria-labelledby="shortfall-title" className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950" data-testid="shortfall">
      <h3 id="shortfall-title" className="font-semibold">
        Not feasible as designed
      </h3>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        {shortfall.markets.map((m) => (
          <li key={m.regionId}>{m.text}</li>
        ))}
      </ul>
      <p className="mt-2">{shortfall.message}</p>
      {onAccept ? (
        <label className="mt-3 flex items-start gap-2 font-medium">
          <input type="checkbox" className="mt-0.5 size-4 shrink-0 rounded border-amber-400 accent-brand-600" checked={accepted === true} onChange={(e) => onAccept(e.target.checked)} />
          <span>{label}</span>
        </label>
      ) : null}
    </section>
  );
}
