// projects/{id}/preview: the survey as a respondent meets it (Projects SurveyPreview), page by page
// through the fielding engine with its validation and rules, for any market of the project.
// Nothing is stored: this page holds the answers and sends them back with each page.
import { useEffect, useEffectEvent, useState, type FormEvent } from "react";
import { Link } from "wouter";
import { ApiError, api, unwrap, type Schemas } from "../../../api/client";
import { handleError } from "../../../api/errors";
import type { CurrentClient } from "../../../state/client";
import { Button, Card, PageHeader, Select, Skeleton } from "../../../components/ui";
import { inWords } from "../../../lib/fieldErrors";
import type { EditorProject } from "../../../features/projects-editor/data";

type View = Schemas["SurveyPreview"];
type Question = NonNullable<View["page"]>["questions"][number];
type Value = number | number[] | string;

function QuestionField({ q, value, error, currency, onChange }: { q: Question; value: Value | undefined; error?: string; currency: string; onChange: (v: Value) => void }) {
  const id = `pq-${q.key}`;
  const described = error ? `${id}-error` : undefined;
  return (
    <fieldset className="space-y-2" aria-describedby={described}>
      <legend className="text-sm font-medium text-ink-900">
        {q.title ? <span className="block text-xs font-semibold text-ink-500 uppercase">{q.title}</span> : null}
        {q.text}
      </legend>
      {q.type === "text" ? (
        <textarea
          aria-label={q.text}
          className="w-full rounded-lg border border-ink-200 px-3 py-2 text-sm"
          rows={3}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : q.type === "price" ? (
        <div className="flex items-center gap-2">
          <span aria-hidden="true">{currency}</span>
          <input
            aria-label={q.text}
            type="number"
            min={0}
            step="0.01"
            inputMode="decimal"
            className="w-32 rounded-lg border border-ink-200 px-3 py-2 text-sm"
            value={typeof value === "number" ? value : ""}
            onChange={(e) => onChange(Number(e.target.value))}
          />
        </div>
      ) : q.type === "dropdown" ? (
        <Select aria-label={q.text} value={typeof value === "number" ? String(value) : ""} onChange={(e) => onChange(Number(e.target.value))}>
          <option value="">Choose one</option>
          {q.options.map((o) => (
            <option key={o.id} value={o.id}>
              {o.text}
            </option>
          ))}
        </Select>
      ) : (
        <div className="space-y-1.5">
          {q.options.map((o) => {
            const multiple = q.type === "multiple";
            const list = Array.isArray(value) ? value : [];
            const checked = multiple ? list.includes(o.id) : value === o.id;
            return (
              <label key={o.id} className="flex items-center gap-2 rounded-lg px-3 py-2 text-sm ring-1 ring-ink-200 hover:bg-ink-50">
                <input
                  type={multiple ? "checkbox" : "radio"}
                  name={q.key}
                  checked={checked}
                  onChange={() =>
                    onChange(multiple ? (checked ? list.filter((x) => x !== o.id) : o.exclusive ? [o.id] : [...list.filter((x) => !q.options.find((p) => p.id === x)?.exclusive), o.id]) : o.id)
                  }
                />
                {o.text}
              </label>
            );
          })}
        </div>
      )}
      {error ? (
        <p id={described} role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

export function PreviewPage({ client, project }: { client: CurrentClient; project: EditorProject }) {
  const [regionId, setRegionId] = useState<number | undefined>(project.projectsRegions[0]?.regionId);
  const [view, setView] = useState<View | null>(null);
  const [input, setInput] = useState<Record<string, Value>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [trouble, setTrouble] = useState<string | null>(null);

  async function go(body: Schemas["SurveyPreviewRequest"]) {
    setBusy(true);
    try {
      const v = await unwrap(api.POST("/api/v1/Projects({key})/SurveyPreview", { params: { path: { key: String(project.id) } }, body }));
      setView(v);
      setInput({});
      setErrors({});
      setTrouble(null);
      window.scrollTo({ top: 0 });
    } catch (e) {
      // A page's failing answers at their questions; anything else said once on the page.
      if (e instanceof ApiError && e.errors?.length && body.pageId) setErrors(Object.fromEntries(e.errors.map((x) => [x.path, inWords(x.message)])));
      else if (e instanceof ApiError && e.status === 409) setTrouble(e.message);
      else handleError(e);
    } finally {
      setBusy(false);
    }
  }
  const restart = () => void go({ ...(regionId ? { regionId } : {}) });
  // The first page, again when the market changes (an effect event: the latest go(), run on the market only).
  const startOver = useEffectEvent(restart);
  useEffect(() => startOver(), [regionId]);

  function next(e: FormEvent) {
    e.preventDefault();
    if (!view?.page) return;
    void go({ ...(regionId ? { regionId } : {}), pageId: view.page.id, input, answers: view.answers });
  }

  const back = `~/${client.id}/projects/${project.id}`;
  return (
    <div className="mx-auto max-w-2xl pb-16">
      <PageHeader
        title="Respondent preview"
        subtitle={`${project.projectName} · what respondents see, page by page. Nothing you answer here is stored.`}
        actions={
          <Link href={back} className="text-sm font-medium text-brand-700 underline">
            Back to the set-up
          </Link>
        }
      />
      {project.projectsRegions.length > 1 ? (
        <div className="mb-4 flex items-center gap-2 text-sm">
          <label htmlFor="preview-market">Market</label>
          <Select id="preview-market" className="w-48" value={regionId ?? ""} onChange={(e) => setRegionId(Number(e.target.value))}>
            {project.projectsRegions.map((r) => (
              <option key={r.regionId} value={r.regionId}>
                {r.region?.regionName ?? r.regionId}
              </option>
            ))}
          </Select>
        </div>
      ) : null}
      {trouble ? (
        <Card>
          <p className="text-sm text-ink-700">{trouble}</p>
        </Card>
      ) : !view ? (
        <Skeleton className="h-64" />
      ) : !view.page ? (
        <Card title="End of the survey">
          <p role="status" className="text-sm text-ink-800">
            {view.message}
          </p>
          <Button className="mt-4" onClick={restart}>
            Start again
          </Button>
        </Card>
      ) : (
        <form onSubmit={next} noValidate>
          <Card
            title={view.page.heading}
            actions={
              <span className="text-xs text-ink-500">
                Page {view.page.index + 1} of {view.page.total}
              </span>
            }
          >
            {view.page.concept ? (
              <figure className="mb-5 overflow-hidden rounded-xl border border-ink-200">
                {view.page.concept.imageUrl ? <img src={view.page.concept.imageUrl} alt={view.page.concept.text} className="max-h-72 w-full bg-ink-50 object-contain" /> : null}
                <figcaption className="p-3">
                  <p className="font-semibold text-ink-900">{view.page.concept.text}</p>
                  {view.page.concept.description ? <p className="mt-1 text-sm whitespace-pre-line text-ink-700">{view.page.concept.description}</p> : null}
                </figcaption>
              </figure>
            ) : null}
            <div className="space-y-6">
              {view.page.questions.map((q) => (
                <QuestionField key={q.key} q={q} value={input[q.key]} error={errors[q.key]} currency={view.currencySymbol} onChange={(v) => setInput((cur) => ({ ...cur, [q.key]: v }))} />
              ))}
            </div>
            <div className="mt-6 flex justify-end">
              <Button type="submit" busy={busy}>
                Next
              </Button>
            </div>
          </Card>
        </form>
      )}
    </div>
  );
}
