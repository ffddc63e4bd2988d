// ProcessSynthQuestion: a free-text idea for a question turned into a structured question,
// deterministically (no AI): the same text always gives the same question. Pure, no I/O.
//
// Rules, in order (docs/decisions.md "Project authoring"):
// 1. Several lines: the first is the question, every further non-empty line an option (list
//    markers such as "-", "*", "•", "1.", "a)" are dropped).
// 2. One line: the question runs up to its last "?" (or, without one, up to a ":"); what follows
//    is the option list, split on "/", "|", ";" or "," (the first that gives two or more), or on
//    " or " ("Tea or coffee?" gives options Tea and Coffee when nothing follows the "?").
// 3. Type: no options -> 3 text; "select all", "all that apply", "tick all", "choose all",
//    "check all" or "(multi)" -> 2 multiple; more than 10 options -> 4 dropdown; else 1 single.
// 4. An option marked "(exclusive)", or reading none / none of these / none of the above /
//    nothing / don't know / not sure / prefer not to say, is exclusive (on multiple choice);
//    "(other)" or "Other" / "Other (please specify)" marks the other option.
// 5. Texts are trimmed and whitespace collapsed; the question keeps its "?"; duplicate options
//    (case-insensitive) are dropped; at most 50 options.

export interface SynthOption {
  optionText: string;
  exclusive: boolean;
  isOther: boolean;
}

export interface SynthQuestion {
  questionText: string;
  questionTypeId: 1 | 2 | 3 | 4;
  questionOptions: SynthOption[];
}

export const MAX_SYNTH_OPTIONS = 50;

const MULTI = /\b(select all|all that apply|tick all|choose all|check all)\b|\(multi(ple)?\)/i;
const EXCLUSIVE = /^(none|none of (these|the above|them)|nothing|neither|don'?t know|do not know|not sure|prefer not to (say|answer))$/i;
const OTHER = /^other( \(please specify\))?$/i;
const MARKER = /^\s*(?:[-*•·◦]|\d{1,2}[.)]|[a-zA-Z][.)])\s+/;

const clean = (s: string) => s.replace(/\s+/g, " ").trim();

function splitOptions(rest: string): string[] {
  for (const sep of ["/", "|", ";", ","]) {
    const parts = rest.split(sep).map(clean).filter(Boolean);
    if (parts.length >= 2) return parts;
  }
  const or = rest
    .split(/\s+or\s+/i)
    .map(clean)
    .filter(Boolean);
  if (or.length >= 2) return or;
  const one = clean(rest);
  return one ? [one] : [];
}

const MULTI_TAG = /\((?:select all|all that apply|tick all|choose all|check all|multi(?:ple)?)[^)]*\)/gi;
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function synthesizeQuestion(input: string): SynthQuestion {
  const full = input.replace(/\r\n?/g, "\n").trim();
  if (!full) throw new Error("empty");
  const multiple = MULTI.test(full);
  const text = full.replace(MULTI_TAG, " ").trim();
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  let question: string;
  let raw: string[];
  if (lines.length > 1) {
    question = clean(lines[0]!).replace(/:$/, "");
    raw = lines.slice(1).map((l) => clean(l.replace(MARKER, "")));
  } else {
    const line = clean(lines[0]!);
    const qm = line.lastIndexOf("?");
    const colon = line.indexOf(":");
    if (qm >= 0 && qm < line.length - 1) {
      question = line.slice(0, qm + 1);
      raw = splitOptions(line.slice(qm + 1));
    } else if (qm < 0 && colon > 0 && colon < line.length - 1) {
      question = line.slice(0, colon).trim();
      raw = splitOptions(line.slice(colon + 1));
    } else {
      question = line;
      raw = [];
      // "Tea or coffee?": the alternatives are the options.
      const body = line.replace(/\?$/, "");
      const or = body.split(/\s+or\s+/i);
      if (qm === line.length - 1 && or.length >= 2 && or.every((o) => o.trim().split(/\s+/).length <= 3)) raw = or.map((o) => capitalise(clean(o)));
    }
  }
  question = clean(question);
  const seen = new Set<string>();
  const options: SynthOption[] = [];
  for (let r of raw) {
    let exclusive = false;
    let isOther = false;
    if (/\(exclusive\)/i.test(r)) {
      exclusive = true;
      r = r.replace(/\(exclusive\)/gi, "");
    }
    if (/\(other\)/i.test(r)) {
      isOther = true;
      r = r.replace(/\(other\)/gi, "");
    }
    r = clean(r).replace(/^["']|["']$/g, "");
    if (!r) continue;
    const k = r.toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    if (EXCLUSIVE.test(r)) exclusive = true;
    if (OTHER.test(r)) isOther = true;
    options.push({ optionText: r.slice(0, 500), exclusive, isOther });
    if (options.length === MAX_SYNTH_OPTIONS) break;
  }
  if (options.length === 1) options.length = 0; // one "option" is not a choice: ask it as text
  let questionTypeId: SynthQuestion["questionTypeId"] = 1;
  if (!options.length) questionTypeId = 3;
  else if (multiple) questionTypeId = 2;
  else if (options.length > 10) questionTypeId = 4;
  // Exclusive answers only mean something when several may be chosen.
  if (questionTypeId !== 2) for (const o of options) o.exclusive = false;
  return { questionText: question.slice(0, 2000), questionTypeId, questionOptions: options };
}
