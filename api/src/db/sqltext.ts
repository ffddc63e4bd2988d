// A small builder for parameterised SQL text. The OData engine compiles queries with it so that
// (a) every input value is a bind parameter and the text is built only from registry identifiers
// and the compiler's own keywords, (b) the final text is known, so tests can assert that no input
// reaches it and benchmarks can run the very same statement through a bare driver.
//
// Usage mirrors postgres.js: q`select ${ident("id")} from ${ident("projects")} where id = ${42}`.
// Interpolated Sql fragments are inlined; anything else becomes a $n parameter.

import type { SqlParams } from "./client.ts";

const PARAM = Symbol("param");
interface Param {
  [PARAM]: true;
  value: unknown;
  cast?: string;
}

type Part = string | Param;

export class Sql {
  constructor(readonly parts: readonly Part[]) {}

  /** Renders to text with $1..$n placeholders and the matching parameter list. */
  render(): { text: string; params: SqlParams } {
    const params: SqlParams = [];
    let text = "";
    for (const p of this.parts) {
      if (typeof p === "string") text += p;
      else {
        // postgres.js serializes any value it is given (by its inferred type, else as text or JSON).
        params.push(p.value as SqlParams[number]);
        text += `$${params.length}${p.cast ? `::${p.cast}` : ""}`;
      }
    }
    return { text, params };
  }

  get isEmpty(): boolean {
    return this.parts.every((p) => p === "");
  }
}

function isSql(v: unknown): v is Sql {
  return v instanceof Sql;
}

/** Tagged template: interpolated Sql fragments are inlined, other values become parameters. */
export function q(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const parts: Part[] = [];
  strings.forEach((s, i) => {
    if (s) parts.push(s);
    if (i < values.length) {
      const v = values[i];
      if (isSql(v)) parts.push(...v.parts);
      else parts.push({ [PARAM]: true, value: v });
    }
  });
  return new Sql(parts);
}

/** A bind parameter with an explicit PostgreSQL cast (e.g. "int4[]", "timestamptz"). */
export function param(value: unknown, cast?: string): Sql {
  if (cast !== undefined && !/^[a-z0-9_ ]+(\[\])?$/.test(cast)) throw new Error(`bad cast ${cast}`);
  return new Sql([{ [PARAM]: true, value, cast }]);
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** A quoted identifier. Only names from the registry or the compiler reach here; checked anyway. */
export function ident(name: string): Sql {
  if (!IDENT.test(name)) throw new Error(`unsafe identifier ${JSON.stringify(name)}`);
  return new Sql([`"${name}"`]);
}

/** alias.column, both checked identifiers. */
export function col(alias: string, column: string): Sql {
  return new Sql([...ident(alias).parts, ".", ...ident(column).parts]);
}

/** Trusted SQL text written by the compiler itself (keywords, operators). Never input. */
export function raw(text: string): Sql {
  return new Sql([text]);
}

export function join(fragments: readonly Sql[], separator: string): Sql {
  const parts: Part[] = [];
  fragments.forEach((f, i) => {
    if (i) parts.push(separator);
    parts.push(...f.parts);
  });
  return new Sql(parts);
}

/** A JSON string literal for a property name in json_build_object: only registry names reach it. */
export function jsonKey(name: string): Sql {
  if (!/^[A-Za-z_@.$][A-Za-z0-9_@.$]*$/.test(name)) throw new Error(`unsafe json key ${name}`);
  return new Sql([`'${name}'`]);
}
