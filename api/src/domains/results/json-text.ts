// A JSON text typed by the value it serializes: the results routes remember serialized answers
// (columnar.ts answerMemo) and send them as they are, still typed as the c.json answer of that value.
import type { TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";

declare const jsonOf: unique symbol;

/** A JSON text that is the serialization of a T. */
export type JsonText<T> = string & { readonly [jsonOf]: T };

/** JSON.stringify(value), typed as the text of a T. */
export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>;

/**
 * Sends a JSON text as c.json would send its value (content-type application/json), typed as that
 * c.json answer: c.body types its body as a string, so the Response is narrowed (a plain downcast,
 * the text being the value's own serialization) to the TypedResponse c.json(value, status) has.
 */
export function sendJsonText<T, S extends ContentfulStatusCode>(
  c: { body(data: string, status: ContentfulStatusCode, headers: Record<string, string>): Response },
  text: JsonText<T>,
  status: S,
): Response & TypedResponse<JSONParsed<T>, S, "json"> {
  const res = c.body(text, status, { "content-type": "application/json" });
  return res as Response & TypedResponse<JSONParsed<T>, S, "json">;
}
