// SPEC 8's error handler chain: typename, then status code, then wildcard, then a custom handler;
// by default a sticky 'An error has occured' toast with the message or status text. Network
// failures and socket closes are not reported.
import { toast } from "../components/toast";
import { ApiError, isNetworkFailure } from "./client";

export interface ErrorHandlers {
  typename?: Record<string, (e: ApiError) => void>;
  status?: Record<number, (e: ApiError) => void>;
  wildcard?: (e: ApiError) => void;
  /** true when it handled the error */
  custom?: (e: unknown) => boolean;
}

export const DEFAULT_ERROR_TITLE = "An error has occured";

export function handleError(e: unknown, h: ErrorHandlers = {}): void {
  if (e instanceof ApiError) {
    if (e.status === 401) return; // unwrap has logged out
    const byType = e.typename ? h.typename?.[e.typename] : undefined;
    const handler = byType ?? h.status?.[e.status] ?? h.wildcard;
    if (handler) {
      handler(e);
      return;
    }
  }
  if (h.custom?.(e)) return;
  if (isNetworkFailure(e)) return;
  const message = e instanceof ApiError ? e.message || e.statusText : e instanceof Error ? e.message : String(e);
  toast.error(DEFAULT_ERROR_TITLE, message, true);
}
