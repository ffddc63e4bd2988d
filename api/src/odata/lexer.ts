// Tokenizer for OData query option values. It validates literal formats here (dates that exist,
// number lengths, no NUL characters) so that every literal the parser sees can be bound as a
// parameter PostgreSQL accepts: a malformed value must be a 400, never a database error.
import { odataError } from "../errors.ts";
import { MAX_NUMBER_DIGITS } from "./limits.ts";

export type TokenKind = "ident" | "string" | "int" | "decimal" | "date" | "datetime" | "guid" | "punct" | "eof";

export interface Token {
  kind: TokenKind;
  /** The source text of the token (for error messages). */
  text: string;
  /** The literal's value: the unescaped string, the number or date text, the identifier. */
  value: string;
  /** Offset in the option's value (0-based). */
  pos: number;
}

const PUNCT = new Set(["(", ")", ",", "/", ":", ";", "=", "*"]);
const IDENT = /[$]?[A-Za-z_][A-Za-z0-9_]*/y;
const GUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![A-Za-z0-9_])/y;
const DATETIME = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))(?![A-Za-z0-9_])/y;
const DATE = /(\d{4})-(\d{2})-(\d{2})(?![A-Za-z0-9_:T])/y;
const DATE_PREFIX = /\d{4}-\d{2}-\d{2}/y;
const NUMBER = /-?(\d+)(?:\.(\d+))?/y;

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function validDate(y: number, m: number, d: number): boolean {
  // Year 0 does not exist for PostgreSQL's ISO input; 9999 keeps us in four digits.
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}

/** Splits an option value into tokens; throws a 400 naming `option` on the first bad character. */
export function tokenize(src: string, option: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (msg: string, at: number, text: string): never => {
    throw odataError(msg, option, at, text);
  };
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i;
    return re.exec(src);
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    const start = i;
    if (c === "'") {
      // '' inside a string is an escaped quote (OData, like SQL).
      let v = "";
      i++;
      for (;;) {
        if (i >= src.length) fail("unterminated string literal", start, src.slice(start));
        const ch = src[i]!;
        if (ch === "'") {
          if (src[i + 1] === "'") {
            v += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        // PostgreSQL text cannot hold NUL: reject it here rather than fail in the driver.
        if (ch === "\u0000") fail("NUL character in string literal", i, src.slice(start, i + 1));
        v += ch;
        i++;
      }
      out.push({ kind: "string", text: src.slice(start, i), value: v, pos: start });
      continue;
    }
    if (PUNCT.has(c)) {
      out.push({ kind: "punct", text: c, value: c, pos: i });
      i++;
      continue;
    }
    let m: RegExpExecArray | null;
    // A guid may start with letters or digits, so it is tried before identifiers and numbers.
    m = match(GUID);
    if (m) {
      out.push({ kind: "guid", text: m[0], value: m[0].toLowerCase(), pos: start });
      i += m[0].length;
      continue;
    }
    if (/[0-9]/.test(c)) {
      m = match(DATETIME);
      if (m) {
        const [, y, mo, d, h, mi, s, , oh, om] = m;
        const ok = validDate(+y!, +mo!, +d!) && +h! <= 23 && +mi! <= 59 && (s === undefined || +s <= 59) && (oh === undefined || (+oh <= 14 && +om! <= 59));
        if (!ok) fail("invalid date/time value", start, m[0]);
        out.push({ kind: "datetime", text: m[0], value: m[0], pos: start });
        i += m[0].length;
        continue;
      }
      m = match(DATE);
      if (m) {
        if (!validDate(+m[1]!, +m[2]!, +m[3]!)) fail("invalid date value", start, m[0]);
        out.push({ kind: "date", text: m[0], value: m[0], pos: start });
        i += m[0].length;
        continue;
      }
      if (match(DATE_PREFIX)) fail("malformed date/time literal", start, src.slice(start, start + 30));
    }
    if (/[0-9]/.test(c) || (c === "-" && /[0-9]/.test(src[i + 1] ?? ""))) {
      m = match(NUMBER)!;
      const digits = m[1]!.length + (m[2]?.length ?? 0);
      if (digits > MAX_NUMBER_DIGITS) fail(`number literal longer than ${MAX_NUMBER_DIGITS} digits`, start, m[0]);
      if (/[A-Za-z_$.]/.test(src[i + m[0].length] ?? "")) fail("malformed number", start, src.slice(start, i + m[0].length + 1));
      out.push({ kind: m[2] === undefined ? "int" : "decimal", text: m[0], value: m[0], pos: start });
      i += m[0].length;
      continue;
    }
    m = match(IDENT);
    if (m) {
      out.push({ kind: "ident", text: m[0], value: m[0], pos: start });
      i += m[0].length;
      continue;
    }
    // Report the whole code point, not half a surrogate pair.
    const cp = String.fromCodePoint(src.codePointAt(i)!);
    fail(`unexpected character ${JSON.stringify(cp)}`, i, cp);
  }
  out.push({ kind: "eof", text: "", value: "", pos: src.length });
  return out;
}

/** A position in a token list with the helpers every grammar rule needs. */
export class Cursor {
  readonly toks: Token[];
  private i = 0;
  /** Prefixed to error messages, e.g. "in $filter of expanded 'region': ". */
  context = "";

  constructor(
    readonly src: string,
    /** The query option being parsed, named in every error. */
    readonly option: string,
  ) {
    this.toks = tokenize(src, option);
  }

  peek(ahead = 0): Token {
    return this.toks[Math.min(this.i + ahead, this.toks.length - 1)]!;
  }

  next(): Token {
    const t = this.peek();
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }

  fail(message: string, tok: Token = this.peek()): never {
    throw odataError(this.context + message, this.option, tok.pos, tok.kind === "eof" ? "end of input" : tok.text);
  }

  isPunct(p: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === "punct" && t.value === p;
  }

  eatPunct(p: string): boolean {
    if (!this.isPunct(p)) return false;
    this.next();
    return true;
  }

  expectPunct(p: string): Token {
    if (!this.isPunct(p)) this.fail(`expected '${p}'`);
    return this.next();
  }

  isWord(word: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === "ident" && t.value === word;
  }

  eatWord(word: string): boolean {
    if (!this.isWord(word)) return false;
    this.next();
    return true;
  }

  expectIdent(what = "a name"): Token {
    if (this.peek().kind !== "ident") this.fail(`expected ${what}`);
    return this.next();
  }

  expectEnd(): void {
    if (this.peek().kind !== "eof") this.fail("unexpected token");
  }
}
