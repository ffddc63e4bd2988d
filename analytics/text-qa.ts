// Quality checks of open-ended answers (CommandRunner ReGenerateTextResponsesQa), pure and
// deterministic. The rules follow the usual data-cleaning checks of survey open ends (e.g.
// Kennedy et al., "The shape of and solutions to the MTurk quality crisis", Political Science
// Research and Methods 2020; Pew Research Center, "Assessing the risks to online polls from bogus
// respondents", 2020): non-answers, answers too short to code, gibberish (keyboard mashing, runs
// of one character, words without vowels), and one respondent pasting the same text into several
// questions. Each answer gets one status, the first rule it fails in that order, with the reason.

export type QaStatus = "Ok" | "NonAnswer" | "TooShort" | "Gibberish" | "Duplicate";
export const QA_STATUSES: readonly QaStatus[] = ["Ok", "NonAnswer", "TooShort", "Gibberish", "Duplicate"];

export interface QaAnswer {
  id: number;
  /** The respondent (survey session): duplicates are looked for within one respondent. */
  respondent: number;
  text: string;
}

export interface QaResult {
  status: QaStatus;
  reason: string | null;
}

/** Answers that say nothing, once lower-cased and stripped of punctuation. */
const NON_ANSWERS = new Set([
  "",
  "na",
  "n a",
  "none",
  "nothing",
  "no",
  "nope",
  "nil",
  "idk",
  "i dk",
  "dunno",
  "no idea",
  "not sure",
  "unsure",
  "dont know",
  "i dont know",
  "no comment",
  "no comments",
  "nothing really",
  "nothing at all",
  "whatever",
  "same",
  "ok",
  "okay",
  "yes",
  "good",
  "fine",
  "test",
  "asdf",
]);
const KEYBOARD_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm", "1234567890"];

export const normalise = (s: string) =>
  s
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\p{L}\p{N}\s]/gu, "")
    .replace(/\s+/g, " ")
    .trim();

function gibberish(text: string): string | null {
  const t = text.toLowerCase();
  const run = /(\p{L})\1{3,}/u.exec(t);
  if (run) return `the letter "${run[1]}" repeated`;
  const letters = t.replace(/[^a-z]/g, "");
  for (const row of KEYBOARD_ROWS) {
    for (let i = 0; i + 4 <= row.length; i++) {
      const seq = row.slice(i, i + 4);
      if (letters.includes(seq) || t.replace(/\s/g, "").includes(seq)) return `keyboard sequence "${seq}"`;
    }
  }
  const words = t.match(/[a-z]+/g) ?? [];
  const bare = words.find((w) => w.length >= 6 && !/[aeiouy]/.test(w));
  if (bare) return `"${bare}" has no vowels`;
  if (letters.length >= 8) {
    const vowels = letters.replace(/[^aeiouy]/g, "").length;
    if (vowels / letters.length < 0.15) return "almost no vowels";
  }
  return null;
}

export function textQa(answers: readonly QaAnswer[]): Map<number, QaResult> {
  const out = new Map<number, QaResult>();
  const seen = new Map<string, number>(); // respondent + normalised text -> first answer id
  for (const a of [...answers].sort((x, y) => x.id - y.id)) {
    const n = normalise(a.text);
    if (NON_ANSWERS.has(n)) {
      out.set(a.id, { status: "NonAnswer", reason: n ? `"${n}" is not an answer` : "empty" });
      continue;
    }
    if ((n.match(/\p{L}/gu) ?? []).length < 2) {
      out.set(a.id, { status: "TooShort", reason: "fewer than two letters" });
      continue;
    }
    const g = gibberish(a.text);
    if (g) {
      out.set(a.id, { status: "Gibberish", reason: g });
      continue;
    }
    const key = `${a.respondent}\u0000${n}`;
    const first = seen.get(key);
    if (first !== undefined && n.length >= 10) {
      out.set(a.id, { status: "Duplicate", reason: `the same text as answer ${first} of this respondent` });
      continue;
    }
    if (first === undefined) seen.set(key, a.id);
    out.set(a.id, { status: "Ok", reason: null });
  }
  return out;
}
