// SPEC 2's error view (code, title, summary, support contact, Go back) and the router error pages
// (400, 403, 404, 405). Outside localhost the error is reported through GET /Logger.
import { Component, useEffect, type ErrorInfo, type ReactNode } from "react";
import { SUPPORT_EMAIL } from "../lib/constants";
import { getToken } from "../state/session";
import { referrerPath } from "../lib/history";
import { Button } from "./ui";

export const ERROR_TITLE = "Sorry, something went wrong on our end.";
export const ERROR_SUMMARY = "We are experiencing some difficulties with our server. Please try again later.";

export const ROUTER_ERRORS: Record<number, { title: string; summary: string }> = {
  400: { title: "Bad Request", summary: "The address is not one this page understands." },
  403: { title: "Forbidden", summary: "You do not have access to this page." },
  404: { title: "Not Found", summary: "There is nothing at this address." },
  405: { title: "Method Not Allowed", summary: "This page cannot be used that way." },
};

function isLocalhost(): boolean {
  return ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
}

/** GET /Logger with eventId, url and message (SPEC 7 Other); never throws. */
export function reportError(eventId: string, message: string) {
  if (isLocalhost()) return;
  const q = new URLSearchParams({ eventId, url: location.href, message: message.slice(0, 1000) });
  const token = getToken();
  void fetch(`/Logger?${q}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).catch(() => {});
}

/** Back to the last page of another module (the navigation history), else the browser's back. */
function goBack() {
  const ref = referrerPath();
  if (ref) location.assign(ref);
  else if (history.length > 1) history.back();
  else location.assign("/");
}

export function ErrorView({ code = 500, title, summary, error }: { code?: number; title?: string; summary?: string; error?: unknown }) {
  useEffect(() => {
    if (error) reportError(`error-${code}`, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }, [code, error]);
  const known = ROUTER_ERRORS[code];
  return (
    <main className="flex min-h-[70vh] items-center justify-center px-6 py-16">
      <div className="max-w-lg text-center">
        <p className="text-sm font-semibold text-brand-600">Error {code}</p>
        <h1 className="mt-2 text-3xl font-semibold text-ink-900">{title ?? known?.title ?? ERROR_TITLE}</h1>
        <p className="mt-3 text-base text-ink-600">{summary ?? known?.summary ?? ERROR_SUMMARY}</p>
        <p className="mt-3 text-sm text-ink-500">
          Need help? Contact{" "}
          <a className="font-medium text-brand-700 underline" href={`mailto:${SUPPORT_EMAIL}`}>
            {SUPPORT_EMAIL}
          </a>
          .
        </p>
        <Button className="mt-8" onClick={goBack}>
          Go back
        </Button>
      </div>
    </main>
  );
}

/** A failed route module load (a new deployment replaced its chunk) reloads the page, once. */
export function isChunkLoadError(e: unknown): boolean {
  return e instanceof Error && /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module/i.test(e.message);
}

export class ErrorBoundary extends Component<{ children: ReactNode; fallback?: (e: unknown) => ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidCatch(error: unknown, _info: ErrorInfo) {
    if (isChunkLoadError(error) && !sessionStorage.getItem("reloaded-after-chunk-error")) {
      sessionStorage.setItem("reloaded-after-chunk-error", "1");
      location.reload();
    }
  }
  override render() {
    const error = this.state.error;
    if (!error) return this.props.children;
    if (this.props.fallback) return this.props.fallback(error);
    const status = (error as { status?: unknown }).status;
    return <ErrorView code={typeof status === "number" && status >= 400 ? status : 500} error={error} />;
  }
}
