// A target question's quota cells in one market (docs/decisions.md "Quotas in the web editor"): a
// share per answer, adding up to 100% or left empty for no quota, checked at the field as the API
// checks it; with each cell's completes needed and those the panel can deliver, as the incidence
// estimate's explanation gives them (never estimated here).
import { useEffect, useEffectEvent, useState } from "react";
import type { Schemas } from "../../../api/client";
import { Button, Input, cx } from "../../../components/ui";
import { optionKey, parseShare, sharesError, type MarketGroup } from "../../../features/quotas";

type TargetOption = Schemas["TargetQuestion"]["options"][number];
type GroupExplanation = Schemas["FeasibilityExplanation"]["groups"][number];

const num = (n: number) => n.toLocaleString("en");

export function QuotaCells({
  id,
  questionLabel,
  marketName,
  options,
  group,
  explanation,
  editable,
  busy,
  onSave,
}: {
  /** A prefix for the fields' ids, unique on the page. */
  id: string;
  questionLabel: string;
  /** The market's name when the project has several (null: one market). */
  marketName: string | null;
  /** The question's answers that apply in this market. */
  options: TargetOption[];
  group: MarketGroup | undefined;
  explanation: GroupExplanation | undefined;
  editable: boolean;
  busy: boolean;
  onSave: (shares: Map<string, number>) => Promise<void>;
}) {
  const stored = (o: TargetOption) => group?.entries.find((e) => e.option === optionKey(o))?.quotaPercent ?? null;
  const initial = () => options.map((o) => (stored(o) === null ? "" : String(stored(o))));
  const storedKey = options.map((o) => stored(o) ?? "").join(",");
  const [texts, setTexts] = useState<string[]>(initial);
  const [touched, setTouched] = useState(false);
  // The stored shares changed (a save, another tab): show them (an effect event reads the latest).
  const reset = useEffectEvent(() => {
    setTexts(initial());
    setTouched(false);
  });
  useEffect(() => reset(), [storedKey]);
  const error = sharesError(texts);
  const dirty = texts.join(",") !== initial().join(",");
  const hasQuota = options.some((o) => stored(o) !== null);
  const total = texts.map(parseShare).reduce<number>((s, p) => s + (typeof p === "number" ? Math.round(p * 100) : 0), 0) / 100;
  const where = marketName ? ` in ${marketName}` : "";
  const errorId = `${id}-error`;
  const summary = hasQuota ? options.flatMap((o) => (stored(o) !== null ? [`${o.answerLabel} ${stored(o)}%`] : [])).join(", ") : "none";

  async function save(e: React.FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (error !== null) return;
    const shares = new Map<string, number>();
    options.forEach((o, i) => {
      const p = parseShare(texts[i] ?? "");
      if (typeof p === "number") shares.set(optionKey(o), p);
    });
    await onSave(shares);
  }

  return (
    <details className="mt-2 rounded-lg border border-ink-100 px-3 py-2" open={hasQuota || undefined} data-testid={`quotas-${id}`}>
      <summary className="cursor-pointer text-sm text-ink-700">
        <span className="font-medium text-ink-900">Quotas{where}</span>: {summary}
      </summary>
      <form className="mt-3 space-y-3" onSubmit={(e) => void save(e)} noValidate>
        <p className="text-xs text-ink-600">A share of the completes per answer{where}, adding up to 100%: only these answers qualify, each up to its share. Leave every share empty for no quota.</p>
        <div className="grid grid-cols-[repeat(auto-fill,minmax(9.5rem,1fr))] gap-3">
          {options.map((o, i) => {
            const cell = explanation?.answers.find((a) => a.optionId === (o.systemQuestionOptionId ?? o.questionOptionId));
            const fieldId = `${id}-${optionKey(o)}`;
            return (
              <div key={optionKey(o)} className="space-y-1">
                <label htmlFor={fieldId} className="block text-sm text-ink-800">
                  {o.answerLabel}
                </label>
                <div className="flex items-center gap-1">
                  <Input
                    id={fieldId}
                    inputMode="decimal"
                    className="w-20"
                    value={texts[i] ?? ""}
                    disabled={!editable || busy}
                    aria-invalid={touched && error ? true : undefined}
                    aria-describedby={touched && error ? errorId : undefined}
                    aria-label={`${o.answerLabel}: share of completes${where} (%)`}
                    onChange={(e) => {
                      const v = e.target.value;
                      setTexts((t) => t.map((x, j) => (j === i ? v : x)));
                    }}
                    onBlur={() => setTouched(true)}
                  />
                  <span className="text-sm text-ink-600" aria-hidden="true">
                    %
                  </span>
                </div>
                {cell?.needed != null && !dirty ? (
                  <p className={cx("text-xs", cell.feasible === false ? "text-amber-800" : "text-ink-600")} data-testid="cell-feasibility">
                    Needs {num(cell.needed)}
                    {cell.deliverable !== null ? `; about ${num(cell.deliverable)} can be delivered` : ""}
                    {cell.feasible === false ? " (not feasible)" : ""}
                  </p>
                ) : null}
              </div>
            );
          })}
        </div>
        <p className="text-sm text-ink-700" aria-live="polite">
          Total: <span className={cx("font-medium", total === 100 ? "text-emerald-800" : "text-ink-900")}>{total}%</span>
        </p>
        {touched && error ? (
          <p id={errorId} className="text-sm text-rose-700" role="alert">
            {error}
          </p>
        ) : null}
        {editable ? (
          <div className="flex flex-wrap gap-2">
            <Button type="submit" variant="secondary" size="sm" busy={busy} disabled={!dirty}>
              Save quotas for {questionLabel}
              {where}
            </Button>
            {texts.some((t) => t.trim() !== "") ? (
              <Button type="button" variant="ghost" size="sm" disabled={busy} onClick={() => setTexts(options.map(() => ""))}>
                Clear the shares
              </Button>
            ) : null}
          </div>
        ) : null}
      </form>
    </details>
  );
}
