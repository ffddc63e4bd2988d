// Toasts as SPEC 9 says: severities success (default), error and ai; life 3000 ms; success with a
// check-circle, error with a cancel icon, ai with the animated eye (small, normal, large; looping
// or not) and a header with a detail text or custom content; show, remove, replace, clear.
import { atom, getDefaultStore, useAtomValue } from "jotai";
import type { ReactNode } from "react";
import { TOAST_LIFE_MS } from "../lib/constants";

export type Severity = "success" | "error" | "ai";
export interface ToastInput {
  severity?: Severity;
  summary: string;
  detail?: string;
  content?: ReactNode;
  /** ms; ignored when sticky. */
  life?: number;
  sticky?: boolean;
  /** An error raised as the app sends the user elsewhere: it is for the page they land on, so the page changes of the next 2 s (a redirect and its own redirect) leave it. */
  forNextPage?: boolean;
  eye?: { size?: "small" | "normal" | "large"; loop?: boolean };
}
export interface Toast extends ToastInput {
  id: number;
  severity: Severity;
  /** ms since the epoch until which a page change leaves it (forNextPage). */
  keepUntil?: number;
}

const toastsAtom = atom<Toast[]>([]);
const store = getDefaultStore();
const timers = new Map<number, ReturnType<typeof setTimeout>>();
let nextId = 1;
/** Toasts on screen at once. */
export const MAX_TOASTS = 3;

function arm(t: Toast) {
  clearTimeout(timers.get(t.id));
  if (!t.sticky)
    timers.set(
      t.id,
      setTimeout(() => toast.remove(t.id), t.life ?? TOAST_LIFE_MS),
    );
}

export const toast = {
  show(input: ToastInput): number {
    const severity = input.severity ?? "success";
    // The same message again is the same toast (its life starts over), not one more on a stack.
    const same = store.get(toastsAtom).find((x) => x.severity === severity && x.summary === input.summary && x.detail === input.detail && !x.content && !input.content);
    if (same) return toast.replace(same.id, input);
    const t: Toast = { ...input, severity, id: nextId++, ...(input.forNextPage ? { keepUntil: Date.now() + 2000 } : {}) };
    // At most MAX_TOASTS on screen: the oldest gives way.
    const list = store.get(toastsAtom);
    for (const old of list.slice(0, Math.max(0, list.length - MAX_TOASTS + 1))) toast.remove(old.id);
    store.set(toastsAtom, (l) => [...l, t]);
    arm(t);
    return t.id;
  },
  /** Error toasts belong to the screen they were raised on: moving to another page clears them. */
  clearErrors() {
    for (const t of store.get(toastsAtom)) if (t.severity === "error" && !((t.keepUntil ?? 0) > Date.now())) toast.remove(t.id);
  },
  success: (summary: string, detail?: string) => toast.show({ severity: "success", summary, detail }),
  error: (summary: string, detail?: string, sticky = false) => toast.show({ severity: "error", summary, detail, sticky }),
  ai: (summary: string, detail?: string, eye: Toast["eye"] = { size: "normal", loop: true }) => toast.show({ severity: "ai", summary, detail, eye }),
  remove(id: number) {
    clearTimeout(timers.get(id));
    timers.delete(id);
    store.set(toastsAtom, (list) => list.filter((t) => t.id !== id));
  },
  replace(id: number, input: ToastInput): number {
    const t: Toast = { ...input, severity: input.severity ?? "success", id };
    store.set(toastsAtom, (list) => (list.some((x) => x.id === id) ? list.map((x) => (x.id === id ? t : x)) : [...list, t]));
    arm(t);
    return id;
  },
  clear() {
    for (const t of timers.values()) clearTimeout(t);
    timers.clear();
    store.set(toastsAtom, []);
  },
};

function CheckCircle() {
  return (
    <svg viewBox="0 0 24 24" className="size-5 shrink-0 text-emerald-600" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2">
      <circle cx="12" cy="12" r="9" />
      <path d="m8 12.5 2.5 2.5L16 9.5" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
function Cancel() {
  return (
    <svg viewBox="0 0 24 24" className="size-5 shrink-0 text-rose-600" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2">
      <circle cx="12" cy="12" r="9" />
      <path d="m9 9 6 6m0-6-6 6" strokeLinecap="round" />
    </svg>
  );
}
/** The animated eye of the AI toast. */
export function AiEye({ size = "normal", loop = true }: { size?: "small" | "normal" | "large"; loop?: boolean }) {
  const px = size === "small" ? "size-4" : size === "large" ? "size-9" : "size-6";
  return (
    <svg viewBox="0 0 24 24" className={`${px} shrink-0 text-brand-600`} aria-hidden="true" data-eye-size={size} data-eye-loop={loop}>
      <path d="M2 12s3.6-6.5 10-6.5S22 12 22 12s-3.6 6.5-10 6.5S2 12 2 12Z" fill="none" stroke="currentColor" strokeWidth="1.8" />
      <circle cx="12" cy="12" r="3.2" fill="currentColor" className={loop ? "animate-eye" : "animate-eye-once"} />
    </svg>
  );
}

export function Toaster() {
  const toasts = useAtomValue(toastsAtom);
  return (
    <div className="pointer-events-none fixed inset-x-0 top-3 z-[100] flex flex-col items-center gap-2 px-3 sm:inset-x-auto sm:right-4 sm:items-end" aria-live="polite">
      {toasts.map((t) => (
        <div
          key={t.id}
          role={t.severity === "error" ? "alert" : "status"}
          data-severity={t.severity}
          className="pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-xl border border-ink-200 bg-white p-3.5 shadow-lg"
        >
          {t.severity === "success" ? <CheckCircle /> : t.severity === "error" ? <Cancel /> : <AiEye {...t.eye} />}
          <div className="min-w-0 flex-1">
            <p className="text-sm font-semibold text-ink-900">{t.summary}</p>
            {t.content ?? (t.detail ? <p className="mt-0.5 text-sm text-ink-600 break-words">{t.detail}</p> : null)}
          </div>
          <button type="button" onClick={() => toast.remove(t.id)} className="rounded p-0.5 text-ink-400 hover:text-ink-700" aria-label="Dismiss">
            <svg viewBox="0 0 20 20" className="size-4" fill="currentColor" aria-hidden="true">
              <path d="M5.3 4.3a1 1 0 0 0-1.4 1.4L8.6 10l-4.7 4.3a1 1 0 1 0 1.4 1.4L10 11.4l4.3 4.3a1 1 0 0 0 1.4-1.4L11.4 10l4.3-4.3a1 1 0 0 0-1.4-1.4L10 8.6 5.3 4.3Z" />
            </svg>
          </button>
        </div>
      ))}
    </div>
  );
}
