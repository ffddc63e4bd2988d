// One error type with a closed list of codes, each mapped to one HTTP status. Every error response
// is `{ typename, message, detail?, errors? }` with an `x-error-trace-id` header (see app.ts).

export const ERROR_CODES = {
  BadRequest: 400,
  ValidationError: 400,
  ODataQueryError: 400,
  Unauthorized: 401,
  Forbidden: 403,
  /** PasswordLogin with a temporary password: call NewPasswordRequired (SPEC 7). */
  NewPasswordRequired: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  /** A URL (query string) longer than the server takes (ops/input.ts MAX_URL_LENGTH). */
  RequestHeaderFieldsTooLarge: 431,
  AuthFailureDto: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  /** The file store is full (a disk with no space left): the upload stored nothing. */
  InsufficientStorage: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  /** Dotted path of the failing field, e.g. "projectName" or "filters.regionIds.0". */
  path: string;
  message: string;
}

/** Seconds a client refused for load (its share of the pool busy, a statement or cross-tab cut off) waits. */
export const LOAD_RETRY_AFTER_SECONDS = 2;

export class ApiError extends Error {
  readonly status: (typeof ERROR_CODES)[ErrorCode];
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    /** Seconds, for 429 and 503: sent as Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_CODES[code];
  }

  toBody(): { typename: string; message: string; detail?: string; errors?: FieldError[] } {
    return {
      typename: this.code,
      message: this.message,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.errors?.length ? { errors: this.errors } : {}),
    };
  }
}

/** An OData query option the engine cannot accept; names the token and its position. */
export function odataError(message: string, option: string, position?: number, token?: string): ApiError {
  const where = position === undefined ? "" : ` at position ${position}`;
  const near = token === undefined ? "" : ` near '${token.slice(0, 40)}'`;
  return new ApiError("ODataQueryError", `${option}: ${message}${where}${near}`);
}

const camel = (s: string) => s.trim().replace(/_([a-z0-9])/g, (_m, ch: string) => ch.toUpperCase());

/**
 * A database error's detail in the API's words: PostgreSQL's text names tables and columns
 * ("Key (project_id)=(5) is not present in table "projects"") and, for a failing row, every value
 * of it. Keys become property names, tables the entity set that holds them (`setOf`), and any
 * other detail is dropped. Applied once, to every error response (app.ts).
 */
export function publicDetail(detail: string | undefined, setOf: (table: string) => string | undefined): string | undefined {
  if (detail === undefined) return undefined;
  // With row-level security PostgreSQL leaves the key out: `Key is not present in table "projects".`
  const key = /^Key (?:\((.+?)\)=\((.*)\) )?(is not present in table|is still referenced from table|already exists)(?: "([^"]+)")?\.?$/s.exec(detail);
  if (!key) return /\b(table|relation|column|constraint|Failing row)\b/i.test(detail) ? undefined : detail;
  const which = key[1] !== undefined ? `${key[1].split(",").map(camel).join(", ")} = ${key[2]}` : undefined;
  const set = key[4] ? (setOf(key[4]) ?? "another") : undefined;
  if (key[3] === "is not present in table") return which ? `No ${set} row has ${which}` : `The ${set} row it refers to does not exist`;
  if (key[3] === "is still referenced from table") return which ? `${set} rows still refer to ${which}` : `${set} rows still refer to it`;
  return which ? `${which} is already taken` : undefined;
}
