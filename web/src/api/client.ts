// The one API client of the web app: the typed openapi-fetch client from contracts/, with the
// bearer token (refreshed as SPEC 4 says), the clientId header taken from the URL (SPEC 7: the
// first numeric path segment, else the chosen client; omitted for /admin paths unless set), and
// the error shape of SPEC 8.
import { createApiClient, type Schemas } from "@ideally/contracts";
import { STORAGE } from "../lib/constants";
import { endSession, validToken } from "../state/session";

export type { Schemas };
// Entity-set answers typed as the row a query asked for ($select/$expand): contracts/odata.ts.
export { selected, type Page, type Row } from "@ideally/contracts/odata";

export function headerClientId(pathname = location.pathname): string | null {
  const first = pathname.split("/")[1] ?? "";
  if (/^\d+$/.test(first)) return first;
  if (pathname.startsWith("/admin")) return null;
  return localStorage.getItem(STORAGE.clientId);
}

export const api = createApiClient({
  baseUrl: location.origin,
  getToken: validToken,
  getClientId: () => headerClientId(),
  credentials: "include",
});

/** An API failure as SPEC 8 describes it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly statusText: string,
    message: string,
    readonly typename?: string,
    readonly detail?: string,
    readonly traceId?: string,
    readonly errors?: { path: string; message: string }[],
  ) {
    super(message);
    this.name = "ApiError";
  }

  static from(res: Response, body: unknown): ApiError {
    const b = (typeof body === "object" && body !== null ? body : {}) as {
      typename?: string;
      message?: string;
      detail?: string;
      error?: { message?: string };
      errors?: { path: string; message: string }[];
    };
    const text = typeof body === "string" && body ? body : undefined;
    const message = b.message ?? b.error?.message ?? text ?? res.statusText ?? `HTTP ${res.status}`;
    return new ApiError(res.status, res.statusText, message, b.typename, b.detail, res.headers.get("x-error-trace-id") ?? undefined, b.errors);
  }
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a typed call, or an ApiError thrown; a 401 logs out (SPEC 8), a 204 is undefined. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const r = await call;
  if (r.response.status === 401) {
    endSession("unauthorized");
    throw ApiError.from(r.response, r.error);
  }
  if (!r.response.ok || r.error !== undefined) throw ApiError.from(r.response, r.error);
  return r.data as T;
}

/** Network failures and socket closes are not reported (SPEC 8). */
export function isNetworkFailure(e: unknown): boolean {
  return e instanceof TypeError && /fetch|network|load failed/i.test(e.message);
}
