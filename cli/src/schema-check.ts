// A small JSON Schema (2020-12 subset) checker: the keywords the contract's request bodies and the
// project-file schema use (type, enum, const, properties, required, additionalProperties, items,
// anyOf, oneOf, $ref, min/max, exclusiveMinimum, minLength/maxLength, minItems/maxItems, pattern,
// format date). It answers every failure with its path, so the caller can point at a line.
export type JsonSchema = Record<string, unknown>;
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}

type Resolve = (ref: string) => JsonSchema | undefined;

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);

function typeMatches(t: string, v: unknown): boolean {
  const a = typeOf(v);
  return t === a || (t === "number" && a === "integer");
}

export function checkSchema(schema: JsonSchema, value: unknown, resolve: Resolve = () => undefined, path: (string | number)[] = []): SchemaIssue[] {
  const s = schema.$ref ? (resolve(String(schema.$ref)) ?? {}) : schema;
  const issues: SchemaIssue[] = [];
  const fail = (message: string, at = path) => issues.push({ path: at, message });
  if (s.anyOf || s.oneOf) {
    const alts = (s.anyOf ?? s.oneOf) as JsonSchema[];
    const results = alts.map((a) => checkSchema(a, value, resolve, path));
    if (!results.some((r) => r.length === 0)) {
      // The alternative that got furthest (fewest issues, deepest path) says the most.
      const best = results.sort((x, y) => x.length - y.length || Math.max(...y.map((i) => i.path.length)) - Math.max(...x.map((i) => i.path.length)))[0];
      const enums = alts.flatMap((a) => (Array.isArray(a.enum) ? a.enum : []));
      if (enums.length === alts.length) fail(`must be one of ${enums.map((e) => JSON.stringify(e)).join(", ")}`);
      else issues.push(...best);
    }
    return issues;
  }
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [String(s.type)];
    if (!types.some((t) => typeMatches(t, value))) {
      fail(
        `must be ${types.map((t) => (t === "integer" ? "a whole number" : t === "array" ? "a list" : t === "object" ? "a mapping" : `a ${t}`)).join(" or ")}, got ${JSON.stringify(value) ?? "nothing"}`,
      );
      return issues;
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => e === value)) fail(`must be one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  if (s.const !== undefined && s.const !== value) fail(`must be ${JSON.stringify(s.const)}`);
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) fail(`must be at least ${s.minimum}`);
    if (typeof s.maximum === "number" && value > s.maximum) fail(`must be at most ${s.maximum}`);
    if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) fail(`must be more than ${s.exclusiveMinimum}`);
  }
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) fail(s.minLength === 1 ? "must not be empty" : `must have at least ${s.minLength} characters`);
    if (typeof s.maxLength === "number" && value.length > s.maxLength) fail(`must have at most ${s.maxLength} characters`);
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) fail(`must match ${s.pattern}`);
    if (s.format === "date" && !(/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)))) fail("must be a date YYYY-MM-DD");
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) fail(`must have at least ${s.minItems} item${s.minItems === 1 ? "" : "s"}`);
    if (typeof s.maxItems === "number" && value.length > s.maxItems) fail(`must have at most ${s.maxItems} items`);
    if (s.items && typeof s.items === "object") {
      const items = s.items as JsonSchema;
      value.forEach((v, i) => {
        issues.push(...checkSchema(items, v, resolve, [...path, i]));
      });
    }
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    for (const r of (s.required ?? []) as string[]) if (obj[r] === undefined) fail(`${r} is required`);
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      if (props[k]) issues.push(...checkSchema(props[k], v, resolve, [...path, k]));
      else if (s.additionalProperties === false) fail(`unknown field '${k}'${suggest(k, Object.keys(props))}`, [...path, k]);
      else if (s.additionalProperties && typeof s.additionalProperties === "object") issues.push(...checkSchema(s.additionalProperties as JsonSchema, v, resolve, [...path, k]));
    }
  }
  return issues;
}

/** " (did you mean x?)" for a near miss (edit distance up to 2, or a case difference). */
function suggest(k: string, known: string[]): string {
  const d = (a: string, b: string) => {
    const m = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) m[0][j] = j;
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) m[i][j] = Math.min(m[i - 1][j] + 1, m[i][j - 1] + 1, m[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return m[a.length][b.length];
  };
  const hit = known.find((x) => x.toLowerCase() === k.toLowerCase()) ?? known.find((x) => d(x, k) <= 2);
  return hit ? ` (did you mean '${hit}'?)` : "";
}
