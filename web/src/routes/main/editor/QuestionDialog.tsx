// Add or edit a custom question: text, short title, type, where it is asked, and its options
// (Questions POST with projectId, or PATCH; options keep their ids so answers stay attached).
import { useState, type FormEvent } from "react";
import { api, unwrap, type Schemas } from "../../../api/client";
import { DEFAULT_ERROR_TITLE, handleError } from "../../../api/errors";
import { toast } from "../../../components/toast";
import { fieldMessages } from "../../../lib/fieldErrors";
import { FormModal } from "../../../components/FormModal";
import { Button, Field, Input, Select, Textarea } from "../../../components/ui";
import { keyPath } from "../../../features/projects-editor/data";
import { QUESTION_TYPES } from "../../../lib/constants";

/** Where a team's own question can be asked (SPEC 3 positions; 5 is the framework's). */
const CUSTOM_POSITIONS: Record<number, string> = { 1: "Screener (before the test)", 6: "Custom (after the framework)", 3: "Follow-up (after all test options)" };
/** SPEC's framework 3998, a project group's usage-and-attitude seeding project. */
const USAGE_AND_ATTITUDE_SEEDING = 3998;
/** A seeding project also asks the group-level questions its group's pages show. */
const GROUP_POSITIONS: Record<number, string> = { 9: "Segmentation", 10: "Occasions", 11: "Needs", 12: "Usage & attitude" };

export function positionsFor(frameworkId: number | null): Record<number, string> {
  return frameworkId === USAGE_AND_ATTITUDE_SEEDING ? { ...CUSTOM_POSITIONS, ...GROUP_POSITIONS } : CUSTOM_POSITIONS;
}

const QUESTION_TYPE_IDS = [1, 2, 3, 4] as const;

export type QuestionDraft = {
  questionText: string;
  questionTitle: string;
  questionTypeId: Schemas["CreateQuestion"]["questionTypeId"];
  questionPositionId: number;
  options: { id?: number; optionText: string; exclusive: boolean }[];
};

type DraftOption = QuestionDraft["options"][number] & { key: string };
let newOptions = 0;
/** An option row's React key: its id once saved, else a number given when it was added, so removing
 * an option takes its own row (input, focus, error) with it, not the last one. */
const keyed = (o: QuestionDraft["options"][number]): DraftOption => ({ ...o, key: o.id ? `option-${o.id}` : `new-${++newOptions}` });

/** SPEC 3's question types (1 single, 2 multiple, 3 text, 4 dropdown) as the contract types them. */
function questionTypeOf(n: number): 1 | 2 | 3 | 4 {
  return n === 2 ? 2 : n === 3 ? 3 : n === 4 ? 4 : 1;
}

export function QuestionDialog({
  projectId,
  frameworkId,
  questionId,
  initial,
  onClose,
  onSaved,
}: {
  projectId: number;
  frameworkId: number | null;
  questionId: number | null;
  initial: QuestionDraft;
  onClose: () => void;
  onSaved: () => void;
}) {
  const positions = positionsFor(frameworkId);
  const [d, setD] = useState<Omit<QuestionDraft, "options"> & { options: DraftOption[] }>(() => ({
    ...initial,
    questionPositionId: positions[initial.questionPositionId] ? initial.questionPositionId : 6,
    options: (initial.options.length
      ? initial.options
      : [
          { optionText: "", exclusive: false },
          { optionText: "", exclusive: false },
        ]
    ).map(keyed),
  }));
  const [busy, setBusy] = useState(false);
  const hasOptions = d.questionTypeId !== 3;
  const options = d.options.filter((o) => o.optionText.trim());
  const valid = d.questionText.trim() && (!hasOptions || options.length >= 2);

  const [errors, setErrors] = useState<Record<string, string>>({});
  const setOption = (i: number, patch: Partial<QuestionDraft["options"][number]>) => setD({ ...d, options: d.options.map((o, j) => (j === i ? { ...o, ...patch } : o)) });

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const body = {
      questionText: d.questionText.trim(),
      questionTitle: d.questionTitle.trim() || null,
      questionTypeId: questionTypeOf(d.questionTypeId),
      questionPositionId: d.questionPositionId,
      questionOptions: hasOptions ? options.map((o) => ({ ...(o.id ? { id: o.id } : {}), optionText: o.optionText.trim(), exclusive: d.questionTypeId === 2 && o.exclusive })) : [],
    };
    try {
      if (questionId) await unwrap(api.PATCH("/api/v1/Questions({key})", { params: keyPath(questionId), body }));
      else await unwrap(api.POST("/api/v1/Questions", { body: { ...body, projectId } }));
      toast.success(questionId ? "Question saved" : "Question added");
      onSaved();
    } catch (err) {
      // The API's field errors at their fields (an option's error at that option), in words.
      const fields: Record<string, string> = {
        questionText: "question-text",
        questionTitle: "question-title",
        questionTypeId: "question-type",
        questionPositionId: "question-position",
        questionOptions: "question-options",
      };
      options.forEach((o, i) => {
        fields[`questionOptions.${i}`] = `option-${d.options.indexOf(o)}`;
      });
      const f = fieldMessages(err, fields);
      if (f) {
        setErrors(f.byField);
        if (f.rest.length) toast.error(DEFAULT_ERROR_TITLE, f.rest.join(" "), true);
      } else handleError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <FormModal
      id="question-form"
      size="lg"
      title={questionId ? "Edit question" : "Add question"}
      submitLabel={questionId ? "Save question" : "Add question"}
      busy={busy}
      disabled={!valid}
      onSubmit={save}
      onClose={onClose}
    >
      <div className="space-y-4">
        <Field id="question-text" label="Question" error={errors["question-text"]}>
          <Textarea id="question-text" rows={2} value={d.questionText} maxLength={2000} required autoFocus onChange={(e) => setD({ ...d, questionText: e.target.value })} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-3">
          <Field id="question-title" label="Short title" error={errors["question-title"]}>
            <Input id="question-title" value={d.questionTitle} maxLength={200} onChange={(e) => setD({ ...d, questionTitle: e.target.value })} />
          </Field>
          <Field id="question-type" label="Type">
            <Select
              id="question-type"
              value={d.questionTypeId}
              onChange={(e) => {
                const t = QUESTION_TYPE_IDS.find((x) => x === Number(e.target.value));
                if (t) setD({ ...d, questionTypeId: t });
              }}
            >
              {Object.entries(QUESTION_TYPES).map(([id, t]) => (
                <option key={id} value={id}>
                  {t}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="question-position" label="Asked">
            <Select id="question-position" value={d.questionPositionId} onChange={(e) => setD({ ...d, questionPositionId: Number(e.target.value) })}>
              {Object.entries(positions).map(([id, t]) => (
                <option key={id} value={id}>
                  {t}
                </option>
              ))}
            </Select>
          </Field>
        </div>
        {hasOptions ? (
          <fieldset>
            <legend className="mb-1.5 text-sm font-medium text-ink-800">Answer options</legend>
            <ol className="space-y-2">
              {d.options.map((o, i) => (
                <li key={o.key} className="flex flex-wrap items-center gap-2">
                  <label className="sr-only" htmlFor={`option-${i}`}>
                    Option {i + 1}
                  </label>
                  <Input
                    id={`option-${i}`}
                    className="min-w-0 flex-1"
                    value={o.optionText}
                    maxLength={500}
                    placeholder={`Option ${i + 1}`}
                    aria-invalid={errors[`option-${i}`] ? true : undefined}
                    aria-describedby={errors[`option-${i}`] ? `option-${i}-error` : undefined}
                    onChange={(e) => setOption(i, { optionText: e.target.value })}
                  />
                  {d.questionTypeId === 2 ? (
                    <label className="flex shrink-0 items-center gap-1 text-xs text-ink-600">
                      <input type="checkbox" checked={o.exclusive} onChange={(e) => setOption(i, { exclusive: e.target.checked })} /> Exclusive
                    </label>
                  ) : null}
                  <Button variant="ghost" size="sm" aria-label={`Remove option ${i + 1}`} disabled={d.options.length <= 1} onClick={() => setD({ ...d, options: d.options.filter((_, j) => j !== i) })}>
                    ✕
                  </Button>
                  {errors[`option-${i}`] ? (
                    <p id={`option-${i}-error`} role="alert" className="w-full text-sm text-rose-700">
                      {errors[`option-${i}`]}
                    </p>
                  ) : null}
                </li>
              ))}
            </ol>
            <Button
              variant="secondary"
              size="sm"
              className="mt-2"
              disabled={d.options.length >= 100}
              onClick={() => setD({ ...d, options: [...d.options, keyed({ optionText: "", exclusive: false })] })}
            >
              Add option
            </Button>
            {errors["question-options"] ? (
              <p role="alert" className="mt-1 text-sm text-rose-700">
                {errors["question-options"]}
              </p>
            ) : null}
            <p className="mt-1 text-xs text-ink-500">At least two. A screener's options can be targeted on the Markets & targets tab.</p>
          </fieldset>
        ) : null}
      </div>
    </FormModal>
  );
}
