// Crossed quota cells of one market in the web editor (docs/decisions/0128-crossed-quota-cells.md):
// two demographic questions chosen, a grid of shares (rows one question's targeted answers, columns
// the other's), the total checked at 100% as the API checks it, each cell's completes needed and
// deliverable from IncidenceEstimate's `crossed` explanation (never estimated here), saved through
// ChangeTargets' crossedQuotas and the API's refusals shown at the grid in its words.
import { useEffect, useEffectEvent, useState } from "react";
import type { Schemas } from "../../../api/client";
import { Button, Input, Select, cx } from "../../../components/ui";
import { cellKey, crossedError, crossingKey, demographics, gridAnswers, ordered, totalOf, type CrossedBody, type GridAnswer, type StoredCrossing } from "../../../features/crossed";
import { parseShare, type TargetModel } from "../../../features/quotas";

type TargetQuestion = Schemas["TargetQuestion"];
type CrossedExplanation = Schemas["FeasibilityExplanation"]["crossed"][number];
/** Saves one crossing of the market: its questions before (null: a new one), now, and its cells; the API's words for the grid, or null. */
export type SaveCrossing = (replaced: [number, number] | null, now: [number, number], cells: CrossedBody[]) => Promise<string | null>;

interface MarketProps {
  regionId: number;
  /** The market's name when the project has several (null: one market). */
  marketName: string | null;
  questions: readonly TargetQuestion[];
  model: TargetModel;
  crossings: StoredCrossing[];
  explanation: CrossedExplanation[];
  editable: boolean;
  busy: boolean;
  onSave: SaveCrossing;
}

const num = (n: number) => n.toLocaleString("en");

/** A market's crossings, each in its grid, and one to add. */
export function CrossedQuotas(props: MarketProps) {
  const { regionId, marketName, questions, crossings, editable } = props;
  const [adding, setAdding] = useState(false);
  const where = marketName ? ` in ${marketName}` : "";
  const label = (id: number) => questions.find((q) => q.source === "system" && q.id === id)?.questionLabel ?? `Question ${id}`;
  const names = crossings.map((x) => `${label(x.questionIds[0])} × ${label(x.questionIds[1])}`);
  const taken = crossings.flatMap((x) => x.questionIds);
  const free = demographics(questions).filter((q) => !taken.includes(q.id));
  return (
    <details className="rounded-lg border border-ink-100 px-3 py-2" open={crossings.length > 0 || undefined} data-testid={`crossed-${regionId}`}>
      <summary className="cursor-pointer text-sm text-ink-700">
        <span className="font-medium text-ink-900">Crossed quotas{where}</span>: {names.length ? names.join(", ") : "none"}
      </summary>
      <div className="mt-3 space-y-4">
        <p className="text-xs text-ink-600">
          Cross two demographic questions{where} to give each pair of answers (Male × 18-24) its share of the completes, adding up to 100%. People whose pair has no share screen out; a full cell turns
          people away. The rows and columns are the answers each question's targets take (every answer when it has none). A crossed question takes no quota of its own.
        </p>
        {crossings.map((x) => (
          <CrossingForm key={crossingKey(x.questionIds)} {...props} where={where} stored={x} choices={[...free, ...demographics(questions).filter((q) => x.questionIds.includes(q.id))]} />
        ))}
        {editable && free.length >= 2 ? (
          crossings.length === 0 || adding ? (
            <CrossingForm
              {...props}
              where={where}
              stored={null}
              choices={free}
              onSave={async (...args) => {
                const said = await props.onSave(...args);
                if (said === null) setAdding(false);
                return said;
              }}
            />
          ) : (
            <Button variant="ghost" size="sm" onClick={() => setAdding(true)}>
              Cross two other questions{where}
            </Button>
          )
        ) : null}
      </div>
    </details>
  );
}

/** One crossing's grid: its two questions, a share per pair, the total, the save. */
function CrossingForm({ regionId, where, model, stored, choices, explanation, editable, busy, onSave }: MarketProps & { where: string; stored: StoredCrossing | null; choices: TargetQuestion[] }) {
  const id = `crossed-${regionId}-${stored ? crossingKey(stored.questionIds) : "new"}`.replace("&", "-");
  const initialTexts = () => Object.fromEntries([...(stored?.shares ?? [])].map(([k, v]) => [k, String(v)]));
  const storedKey = JSON.stringify([...(stored?.shares ?? [])]);
  const [rowQ, setRowQ] = useState<number | null>(stored?.questionIds[0] ?? null);
  const [colQ, setColQ] = useState<number | null>(stored?.questionIds[1] ?? null);
  const [texts, setTexts] = useState<Record<string, string>>(initialTexts);
  const [touched, setTouched] = useState(false);
  const [apiError, setApiError] = useState<string | null>(null);
  // The stored cells changed (a save, another tab): show them.
  const reset = useEffectEvent(() => {
    setTexts(initialTexts());
    setTouched(false);
  });
  useEffect(() => reset(), [storedKey]);

  const question = (qid: number | null) => (qid === null ? undefined : choices.find((q) => q.id === qid));
  const rows = question(rowQ);
  const cols = question(colQ);
  const pair = rows && cols ? ordered(rows.id, cols.id) : null;
  const name = pair ? `${question(pair[0])!.questionLabel} × ${question(pair[1])!.questionLabel}` : "";
  const keep = (side: 0 | 1) => [...(stored?.shares.keys() ?? [])].map((k) => Number(k.split("&")[side]));
  const sideOf = (q: TargetQuestion) => (pair && q.id === pair[0] ? 0 : 1);
  const answers = (q: TargetQuestion | undefined) => (q ? gridAnswers(q, model.get(`s${q.id}`)?.get(regionId), regionId, keep(sideOf(q))) : []);
  const rowAnswers = answers(rows);
  const colAnswers = answers(cols);
  /** A grid cell as the API has it: the lower question's answer first. */
  const cellOf = (r: GridAnswer, c: GridAnswer) => {
    const [a, b] = rows && cols && rows.id < cols.id ? [r, c] : [c, r];
    return { key: cellKey(a.optionId, b.optionId), ids: [a.optionId, b.optionId] satisfies [number, number], label: `${a.label} × ${b.label}` };
  };
  const cells = rowAnswers.flatMap((r) => colAnswers.map((c) => cellOf(r, c)));
  const shown = cells.map((c) => texts[c.key] ?? "");
  const error = pair ? crossedError(shown) : null;
  const initial = initialTexts();
  const moved = !stored || !pair || crossingKey(pair) !== crossingKey(stored.questionIds);
  const dirty = cells.some((c) => (texts[c.key] ?? "") !== (moved ? "" : (initial[c.key] ?? ""))) || (!!stored && moved);
  const said = touched ? (error ?? apiError) : null;
  const errorId = `${id}-error`;
  const x = pair ? explanation.find((e) => e.key === crossingKey(pair)) : undefined;

  async function save(e: React.FormEvent) {
    e.preventDefault();
    setTouched(true);
    setApiError(null);
    if (!pair || error !== null) return;
    const body: CrossedBody[] = cells.flatMap((c) => {
      const p = parseShare(texts[c.key] ?? "");
      return typeof p === "number" ? [{ regionId, systemQuestionOptionIds: c.ids, quotaPercent: p }] : [];
    });
    setApiError(await onSave(stored?.questionIds ?? null, pair, body));
  }

  const pick = (v: string) => (v === "" ? null : Number(v));
  const select = (which: "rows" | "columns", value: number | null, other: number | null, set: (v: number | null) => void) => (
    <div className="space-y-1">
      <label htmlFor={`${id}-${which}`} className="block text-sm text-ink-800">
        {which === "rows" ? "Rows" : "Columns"}
      </label>
      <Select
        id={`${id}-${which}`}
        className="w-48"
        value={value ?? ""}
        disabled={!editable || busy}
        onChange={(e) => {
          set(pick(e.target.value));
          setApiError(null);
        }}
      >
        <option value="">Choose a question</option>
        {choices
          .filter((q) => q.id !== other)
          .map((q) => (
            <option key={q.id} value={q.id}>
              {q.questionLabel}
            </option>
          ))}
      </Select>
    </div>
  );

  return (
    <form className="space-y-3" onSubmit={(e) => void save(e)} noValidate data-testid={id}>
      <div className="flex flex-wrap gap-3">
        {select("rows", rowQ, colQ, setRowQ)}
        {select("columns", colQ, rowQ, setColQ)}
      </div>
      {rows && cols ? (
        <>
          <section className="relative overflow-x-auto rounded-lg border border-ink-200" tabIndex={0} aria-label={`Crossed cells of ${name}${where}`}>
            <table className="min-w-full text-sm">
              <thead className="bg-ink-50">
                <tr>
                  <th scope="col" className="px-3 py-2 text-left text-xs font-semibold text-ink-600">
                    {rows.questionLabel} <span aria-hidden="true">\</span> {cols.questionLabel}
                  </th>
                  {colAnswers.map((c) => (
                    <th key={c.optionId} scope="col" className="px-3 py-2 text-left text-xs font-semibold text-ink-600">
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody className="divide-y divide-ink-100">
                {rowAnswers.map((r) => (
                  <tr key={r.optionId}>
                    <th scope="row" className="px-3 py-2 text-left font-medium whitespace-nowrap text-ink-800">
                      {r.label}
                    </th>
                    {colAnswers.map((c) => {
                      const cell = cellOf(r, c);
                      const out = x?.cells.find((y) => y.optionIds[0] === cell.ids[0] && y.optionIds[1] === cell.ids[1]);
                      return (
                        <td key={cell.key} className="px-3 py-2 align-top">
                          <div className="flex items-center gap-1">
                            <Input
                              className="max-w-24 min-w-16"
                              inputMode="decimal"
                              value={texts[cell.key] ?? ""}
                              disabled={!editable || busy}
                              aria-label={`Share of ${cell.label}${where}`}
                              aria-invalid={said ? true : undefined}
                              aria-describedby={said ? errorId : undefined}
                              onChange={(e) => {
                                const v = e.target.value;
                                setTexts((t) => ({ ...t, [cell.key]: v }));
                                setApiError(null);
                              }}
                              onBlur={() => setTouched(true)}
                            />
                            <span className="text-sm text-ink-600" aria-hidden="true">
                              %
                            </span>
                          </div>
                          {out && !dirty ? (
                            <p className={cx("mt-1 min-w-32 text-xs", out.feasible === false ? "text-amber-800" : "text-ink-600")} data-testid="crossed-cell-feasibility">
                              Needs {num(out.needed)}
                              {out.deliverable !== null ? `; about ${num(out.deliverable)} can be delivered` : ""}
                              {out.feasible === false ? " (not feasible)" : ""}
                            </p>
                          ) : null}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <p className="text-sm text-ink-700" aria-live="polite">
            Total: <span className={cx("font-medium", totalOf(shown) === 100 ? "text-emerald-800" : "text-ink-900")}>{totalOf(shown)}%</span>
          </p>
        </>
      ) : (
        <p className="text-xs text-ink-600">Choose two questions to cross.</p>
      )}
      {said ? (
        <p id={errorId} className="text-sm text-rose-700" role="alert">
          {said}
        </p>
      ) : null}
      {editable && pair ? (
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="secondary" size="sm" busy={busy} disabled={!dirty}>
            Save crossed quotas for {name}
            {where}
          </Button>
          {shown.some((t) => t.trim() !== "") ? (
            <Button type="button" variant="ghost" size="sm" disabled={busy} onClick={() => setTexts((t) => ({ ...t, ...Object.fromEntries(cells.map((c) => [c.key, ""])) }))}>
              Clear the shares
            </Button>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
