// A small subset of jq (https://jqlang.org/manual/) for `--jq EXPR`, written here so the CLI needs
// no binary and downloads nothing. What it takes (docs/cli.md "--jq"):
//   .  .a  .a.b  ."a b"  .[0]  .[-1]  .[]  .a[]  .[]?    paths (null in, null out)
//   a | b   a, b   (a)   [a]   {a, b: .c, "d e": .f}     pipes, several outputs, grouping, building
//   == != < <= > >=   and  or  not   a // b               comparisons in jq's order of types, logic, alternative
//   select(f)  map(f)  length  keys  has("k")  add  first  last
//   "text"  42  true  false  null                         literals
// Semantics follow jq 1.7: an output per value (`.[]` gives several), `select` passes its input on
// when the condition is true (false and null are false, everything else true), `.a` of null is null,
// `keys` sorted, and values order null < false < true < numbers < strings < arrays < objects.
// Anything else is a syntax error naming the column, before any request is sent.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

type Node =
  | { t: "identity" }
  | { t: "field"; of: Node; name: string; opt: boolean }
  | { t: "index"; of: Node; index: Node; opt: boolean }
  | { t: "each"; of: Node; opt: boolean }
  | { t: "literal"; value: Json }
  | { t: "pipe"; a: Node; b: Node }
  | { t: "comma"; a: Node; b: Node }
  | { t: "array"; of: Node | null }
  | { t: "object"; entries: { key: Node; value: Node }[] }
  | { t: "binary"; op: string; a: Node; b: Node }
  | { t: "call"; name: string; arg: Node | null };

export class JqError extends Error {}

type Token = { k: "punct" | "ident" | "string" | "number" | "field" | "end"; v: string; at: number };

const PUNCT = ["//", "==", "!=", "<=", ">=", "|", ",", "(", ")", "[", "]", "{", "}", ":", "<", ">", ".", "?"];

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i + 1;
    if (c === '"') {
      let j = i + 1;
      let raw = '"';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === "\\") raw += src[j++];
        raw += src[j++] ?? "";
      }
      if (j >= src.length) throw new JqError(`unterminated string at column ${at}`);
      try {
        out.push({ k: "string", v: JSON.parse(`${raw}"`) as string, at });
      } catch {
        throw new JqError(`bad escape in the string at column ${at}`);
      }
      i = j + 1;
      continue;
    }
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ k: "number", v: num[0], at });
      i += num[0].length;
      continue;
    }
    // `.name` is one token (a field), as in jq: `. name` is not.
    const field = /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(src.slice(i));
    if (field) {
      out.push({ k: "field", v: field[1]!, at });
      i += field[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (ident) {
      out.push({ k: "ident", v: ident[0], at });
      i += ident[0].length;
      continue;
    }
    const p = PUNCT.find((x) => src.startsWith(x, i));
    if (!p) throw new JqError(`unexpected '${c}' at column ${at}`);
    out.push({ k: "punct", v: p, at });
    i += p.length;
  }
  out.push({ k: "end", v: "", at: src.length + 1 });
  return out;
}

const FUNCTIONS: Record<string, boolean> = { select: true, map: true, has: true, length: false, keys: false, add: false, first: false, last: false, not: false, empty: false };

/** Parses a jq expression of the subset; a JqError names the column of the first mistake. */
export function parseJq(src: string): Node {
  const toks = tokenize(src);
  let pos = 0;
  const peek = () => toks[pos]!;
  const is = (v: string) => peek().k === "punct" && peek().v === v;
  const isWord = (v: string) => peek().k === "ident" && peek().v === v;
  const expect = (v: string) => {
    if (!is(v)) throw new JqError(`expected '${v}' at column ${peek().at}${peek().k === "end" ? " (end of the expression)" : `, found '${peek().v}'`}`);
    pos++;
  };

  // Precedence, loosest first: | , // or and comparisons.
  const pipe = (): Node => {
    let a = comma();
    while (is("|")) {
      pos++;
      a = { t: "pipe", a, b: comma() };
    }
    return a;
  };
  const comma = (): Node => {
    let a = alt();
    while (is(",")) {
      pos++;
      a = { t: "comma", a, b: alt() };
    }
    return a;
  };
  const alt = (): Node => {
    const a = or();
    if (is("//")) {
      pos++;
      return { t: "binary", op: "//", a, b: alt() };
    }
    return a;
  };
  const or = (): Node => {
    let a = and();
    while (isWord("or")) {
      pos++;
      a = { t: "binary", op: "or", a, b: and() };
    }
    return a;
  };
  const and = (): Node => {
    let a = compare();
    while (isWord("and")) {
      pos++;
      a = { t: "binary", op: "and", a, b: compare() };
    }
    return a;
  };
  const compare = (): Node => {
    const a = postfix();
    for (const op of ["==", "!=", "<=", ">=", "<", ">"]) {
      if (is(op)) {
        pos++;
        return { t: "binary", op, a, b: postfix() };
      }
    }
    return a;
  };
  // A term followed by .name, [n], [] and ?.
  const postfix = (): Node => {
    let n = term();
    for (;;) {
      if (peek().k === "field") {
        n = { t: "field", of: n, name: toks[pos++]!.v, opt: optional() };
      } else if (is(".") && toks[pos + 1]?.k === "string") {
        pos++;
        n = { t: "field", of: n, name: toks[pos++]!.v, opt: optional() };
      } else if (is("[") || (is(".") && toks[pos + 1]?.k === "punct" && toks[pos + 1]?.v === "[")) {
        if (is(".")) pos++;
        pos++;
        if (is("]")) {
          pos++;
          n = { t: "each", of: n, opt: optional() };
        } else {
          const index = pipe();
          expect("]");
          n = { t: "index", of: n, index, opt: optional() };
        }
      } else return n;
    }
  };
  const optional = () => {
    if (!is("?")) return false;
    pos++;
    return true;
  };
  const term = (): Node => {
    const tok = peek();
    if (tok.k === "field") {
      pos++;
      return { t: "field", of: { t: "identity" }, name: tok.v, opt: optional() };
    }
    if (tok.k === "string") {
      pos++;
      return { t: "literal", value: tok.v };
    }
    if (tok.k === "number") {
      pos++;
      return { t: "literal", value: Number(tok.v) };
    }
    if (tok.k === "punct") {
      if (tok.v === ".") {
        pos++;
        // `."name"`; `.[...]` is read by postfix on the identity.
        if (peek().k === "string") {
          const name = toks[pos++]!.v;
          return { t: "field", of: { t: "identity" }, name, opt: optional() };
        }
        return { t: "identity" };
      }
      if (tok.v === "(") {
        pos++;
        const e = pipe();
        expect(")");
        return e;
      }
      if (tok.v === "[") {
        pos++;
        if (is("]")) {
          pos++;
          return { t: "array", of: null };
        }
        const of = pipe();
        expect("]");
        return { t: "array", of };
      }
      if (tok.v === "{") {
        pos++;
        const entries: { key: Node; value: Node }[] = [];
        while (!is("}")) {
          const k = peek();
          let name: string;
          if (k.k === "ident" || k.k === "string") name = k.v;
          else throw new JqError(`expected a key at column ${k.at}`);
          pos++;
          let value: Node = { t: "field", of: { t: "identity" }, name, opt: false };
          if (is(":")) {
            pos++;
            value = alt();
          } else if (k.k === "string") throw new JqError(`expected ':' after the key at column ${peek().at}`);
          entries.push({ key: { t: "literal", value: name }, value });
          if (!is(",")) break;
          pos++;
        }
        expect("}");
        return { t: "object", entries };
      }
    }
    if (tok.k === "ident") {
      pos++;
      if (tok.v === "true" || tok.v === "false") return { t: "literal", value: tok.v === "true" };
      if (tok.v === "null") return { t: "literal", value: null };
      if (!(tok.v in FUNCTIONS)) throw new JqError(`unknown function '${tok.v}' at column ${tok.at} (this jq subset has ${Object.keys(FUNCTIONS).join(", ")})`);
      if (FUNCTIONS[tok.v]) {
        expect("(");
        const arg = pipe();
        expect(")");
        return { t: "call", name: tok.v, arg };
      }
      return { t: "call", name: tok.v, arg: null };
    }
    throw new JqError(tok.k === "end" ? "the expression ends too soon" : `unexpected '${tok.v}' at column ${tok.at}`);
  };

  const node = pipe();
  if (peek().k !== "end") throw new JqError(`unexpected '${peek().v}' at column ${peek().at}`);
  return node;
}

const typeOf = (v: Json): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v);
const truthy = (v: Json) => v !== null && v !== false;
const RANK: Record<string, number> = { null: 0, boolean: 1, number: 3, string: 4, array: 5, object: 6 };

/** jq's order of values: by type (false before true), then by value; objects by their keys, then values. */
export function compareJson(a: Json, b: Json): number {
  const [ta, tb] = [typeOf(a), typeOf(b)];
  const ra = ta === "boolean" ? (a ? 2 : 1) : RANK[ta]!;
  const rb = tb === "boolean" ? (b ? 2 : 1) : RANK[tb]!;
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ta === "number") return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ta === "string") return codepointCompare(a as string, b as string);
  if (ta === "array") {
    const [x, y] = [a as Json[], b as Json[]];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const c = compareJson(x[i]!, y[i]!);
      if (c !== 0) return c;
    }
    return x.length - y.length === 0 ? 0 : x.length < y.length ? -1 : 1;
  }
  if (ta === "object") {
    const [x, y] = [a as Record<string, Json>, b as Record<string, Json>];
    const c = compareJson(sortedKeys(x), sortedKeys(y));
    if (c !== 0) return c;
    for (const k of sortedKeys(x)) {
      const d = compareJson(x[k]!, y[k]!);
      if (d !== 0) return d;
    }
  }
  return 0;
}

function codepointCompare(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

const sortedKeys = (o: Record<string, Json>) => Object.keys(o).sort(codepointCompare);

const show = (v: Json) => {
  const s = JSON.stringify(v);
  return s.length > 30 ? `${s.slice(0, 27)}...` : s;
};

function* run(n: Node, input: Json): Generator<Json> {
  switch (n.t) {
    case "identity":
      yield input;
      return;
    case "literal":
      yield n.value;
      return;
    case "field":
      for (const v of run(n.of, input)) {
        if (v === null) yield null;
        else if (typeOf(v) === "object") yield (v as Record<string, Json>)[n.name] ?? null;
        else if (!n.opt) throw new JqError(`cannot index ${typeOf(v)} with "${n.name}"`);
      }
      return;
    case "index":
      for (const v of run(n.of, input)) {
        for (const i of run(n.index, input)) {
          if (v === null) yield null;
          else if (Array.isArray(v) && typeof i === "number") {
            const k = Math.floor(i < 0 ? v.length + i : i);
            yield k >= 0 && k < v.length ? v[k]! : null;
          } else if (typeOf(v) === "object" && typeof i === "string") yield (v as Record<string, Json>)[i] ?? null;
          else if (!n.opt) throw new JqError(`cannot index ${typeOf(v)} with ${typeOf(i)}`);
        }
      }
      return;
    case "each":
      for (const v of run(n.of, input)) {
        if (Array.isArray(v)) yield* v;
        else if (typeOf(v) === "object") yield* Object.values(v as Record<string, Json>);
        else if (!n.opt) throw new JqError(`cannot iterate over ${typeOf(v)}${v === null ? "" : ` (${show(v)})`}`);
      }
      return;
    case "pipe":
      for (const v of run(n.a, input)) yield* run(n.b, v);
      return;
    case "comma":
      yield* run(n.a, input);
      yield* run(n.b, input);
      return;
    case "array":
      yield n.of ? [...run(n.of, input)] : [];
      return;
    case "object": {
      // Every combination of the entries' outputs, as jq builds them.
      let partial: Record<string, Json>[] = [{}];
      for (const e of n.entries) {
        const next: Record<string, Json>[] = [];
        for (const o of partial) {
          for (const k of run(e.key, input)) {
            if (typeof k !== "string") throw new JqError(`object keys must be strings, not ${typeOf(k)}`);
            for (const v of run(e.value, input)) next.push({ ...o, [k]: v });
          }
        }
        partial = next;
      }
      yield* partial;
      return;
    }
    case "binary":
      yield* binary(n.op, n.a, n.b, input);
      return;
    case "call":
      yield* call(n.name, n.arg, input);
      return;
  }
}

function* binary(op: string, a: Node, b: Node, input: Json): Generator<Json> {
  if (op === "//") {
    let any = false;
    for (const v of run(a, input)) {
      if (truthy(v)) {
        any = true;
        yield v;
      }
    }
    if (!any) yield* run(b, input);
    return;
  }
  if (op === "and" || op === "or") {
    for (const x of run(a, input)) {
      if (op === "and" && !truthy(x)) yield false;
      else if (op === "or" && truthy(x)) yield true;
      else for (const y of run(b, input)) yield truthy(y);
    }
    return;
  }
  // jq takes the right side's outputs in the outer loop.
  for (const y of run(b, input)) {
    for (const x of run(a, input)) {
      const c = compareJson(x, y);
      yield op === "==" ? c === 0 : op === "!=" ? c !== 0 : op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
    }
  }
}

function* call(name: string, arg: Node | null, input: Json): Generator<Json> {
  switch (name) {
    case "select":
      for (const c of run(arg!, input)) if (truthy(c)) yield input;
      return;
    case "map":
      if (!Array.isArray(input) && typeOf(input) !== "object") throw new JqError(`cannot iterate over ${typeOf(input)}`);
      yield (Array.isArray(input) ? input : Object.values(input as Record<string, Json>)).flatMap((v) => [...run(arg!, v)]);
      return;
    case "has":
      for (const k of run(arg!, input)) {
        if (typeOf(input) === "object" && typeof k === "string") yield Object.hasOwn(input as object, k);
        else if (Array.isArray(input) && typeof k === "number") yield k >= 0 && k < input.length;
        else throw new JqError(`cannot check whether ${typeOf(input)} has a ${typeOf(k)} key`);
      }
      return;
    case "length":
      if (input === null) yield 0;
      else if (typeof input === "number") yield Math.abs(input);
      else if (typeof input === "string") yield [...input].length;
      else if (Array.isArray(input)) yield input.length;
      else if (typeof input === "object") yield Object.keys(input).length;
      else throw new JqError(`${typeOf(input)} (${show(input)}) has no length`);
      return;
    case "keys":
      if (Array.isArray(input)) yield input.map((_, i) => i);
      else if (typeOf(input) === "object") yield sortedKeys(input as Record<string, Json>);
      else throw new JqError(`${typeOf(input)} (${show(input)}) has no keys`);
      return;
    case "add": {
      const items = Array.isArray(input) ? input : typeOf(input) === "object" ? Object.values(input as Record<string, Json>) : null;
      if (!items) throw new JqError(`cannot iterate over ${typeOf(input)}`);
      yield items.reduce<Json>((acc, v) => plus(acc, v), null);
      return;
    }
    case "first":
    case "last":
      if (!Array.isArray(input) && input !== null) throw new JqError(`cannot index ${typeOf(input)} with number`);
      yield input === null ? null : ((name === "first" ? input[0] : input[input.length - 1]) ?? null);
      return;
    case "not":
      yield !truthy(input);
      return;
    case "empty":
      return;
  }
}

/** jq's `+` as `add` uses it: null is the identity; numbers add, strings and arrays join, objects merge. */
function plus(a: Json, b: Json): Json {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (typeof a === "string" && typeof b === "string") return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeOf(a) === "object" && typeOf(b) === "object") return { ...(a as object), ...(b as object) } as Json;
  throw new JqError(`${typeOf(a)} (${show(a)}) and ${typeOf(b)} (${show(b)}) cannot be added`);
}

/** The outputs of `expr` on `input` (a parsed expression, or its text). */
export function jq(expr: string | Node, input: Json): Json[] {
  return [...run(typeof expr === "string" ? parseJq(expr) : expr, input)];
}

/** As jq -r prints them (gh's --jq too): a string as it is, anything else as compact JSON; one a line. */
export function jqLines(outputs: Json[]): string {
  return outputs.map((v) => `${typeof v === "string" ? v : JSON.stringify(v)}\n`).join("");
}
