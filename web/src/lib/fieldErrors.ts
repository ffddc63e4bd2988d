// Forms that speak at the field: an API ValidationError lists its failing fields by path
// ("emails.0", "questionOptions.1.optionText"); a form maps path prefixes to its own fields and
// shows each message there, in words, without the raw path. What maps to no field is the rest,
// for the toast.
import { ApiError } from "../api/client";

export interface FieldMessages {
  /** Field id -> the messages for it, joined. */
  byField: Record<string, string>;
  /** Messages that belong to no field of the form. */
  rest: string[];
}

/** The most specific prefix of `path` that the form has a field for. */
function fieldFor(path: string, fields: Record<string, string>): string | undefined {
  const parts = path.split(".");
  for (let n = parts.length; n > 0; n--) {
    const f = fields[parts.slice(0, n).join(".")];
    if (f) return f;
  }
  return undefined;
}

/** A message in words: "emails.0: Invalid email address" -> "Invalid email address". */
export function inWords(message: string): string {
  return message.replace(/^[\w.[\]]+:\s*/, "");
}

export function fieldMessages(e: unknown, fields: Record<string, string>): FieldMessages | null {
  if (!(e instanceof ApiError) || !e.errors?.length) return null;
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  for (const x of e.errors) {
    const f = fieldFor(x.path, fields);
    const words = inWords(x.message);
    if (f) byField[f] = byField[f] ? `${byField[f]} ${words}` : words;
    else rest.push(words);
  }
  return { byField, rest };
}
