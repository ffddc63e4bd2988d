// The design system's building blocks. Every page composes these; none restyles them ad hoc.
import { forwardRef, isValidElement, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { Link } from "wouter";
import { keyedBy } from "../lib/keys";

export function cx(...parts: (string | false | null | undefined)[]): string {
  return parts.filter(Boolean).join(" ");
}

type Variant = "primary" | "secondary" | "ghost" | "danger";
const variants: Record<Variant, string> = {
  primary: "bg-brand-600 text-white hover:bg-brand-700 shadow-sm disabled:bg-brand-300",
  secondary: "bg-white text-ink-800 ring-1 ring-inset ring-ink-200 hover:bg-ink-50 shadow-sm disabled:text-ink-400",
  ghost: "text-ink-700 hover:bg-ink-100 disabled:text-ink-400",
  danger: "bg-rose-600 text-white hover:bg-rose-700 shadow-sm disabled:bg-rose-300",
};

export const Button = forwardRef<HTMLButtonElement, ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: "sm" | "md"; busy?: boolean }>(function Button(
  { variant = "primary", size = "md", busy, className, children, disabled, type = "button", ...rest },
  ref,
) {
  return (
    <button
      ref={ref}
      type={type}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      className={cx(
        "inline-flex items-center justify-center gap-2 rounded-lg font-medium transition-colors disabled:cursor-not-allowed",
        size === "sm" ? "h-8 px-3 text-sm" : "h-10 px-4 text-sm",
        variants[variant],
        className,
      )}
      {...rest}
    >
      {busy ? <Spinner className="size-4" /> : null}
      {children}
    </button>
  );
});

export function ButtonLink({ href, variant = "primary", className, children }: { href: string; variant?: Variant; className?: string; children: ReactNode }) {
  return (
    <Link href={href} className={cx("inline-flex h-10 items-center justify-center gap-2 rounded-lg px-4 text-sm font-medium", variants[variant], className)}>
      {children}
    </Link>
  );
}

export function Spinner({ className = "size-5" }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" className={cx("animate-spin", className)} aria-hidden="true" fill="none">
      <circle cx="12" cy="12" r="9" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
      <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}

const fieldClass =
  "block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-ink-900 shadow-sm ring-1 ring-inset ring-ink-200 placeholder:text-ink-400 focus:ring-2 focus:ring-inset focus:ring-brand-500 focus:outline-none disabled:bg-ink-50 disabled:text-ink-500";

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input({ className, ...rest }, ref) {
  return <input ref={ref} className={cx(fieldClass, "h-10", className)} {...rest} />;
});

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(function Textarea({ className, ...rest }, ref) {
  return <textarea ref={ref} className={cx(fieldClass, className)} {...rest} />;
});

export function Select({ className, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <select className={cx(fieldClass, "h-10 pr-8", className)} {...rest}>
      {children}
    </select>
  );
}

/** A labelled form field; the label is tied to the control by id. */
export function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium text-ink-800">
        {label}
      </label>
      {children}
      {error ? (
        <p className="text-sm text-rose-700" role="alert">
          {error}
        </p>
      ) : hint ? (
        <p className="text-xs text-ink-500">{hint}</p>
      ) : null}
    </div>
  );
}

export function Card({ className, children, title, actions }: { className?: string; children: ReactNode; title?: ReactNode; actions?: ReactNode }) {
  return (
    <section className={cx("rounded-xl border border-ink-200 bg-white shadow-sm", className)}>
      {title || actions ? (
        <header className="flex items-center justify-between gap-3 border-b border-ink-100 px-5 py-3.5">
          <h2 className="text-sm font-semibold text-ink-900">{title}</h2>
          {actions}
        </header>
      ) : null}
      <div className="p-5">{children}</div>
    </section>
  );
}

const badgeTones = {
  neutral: "bg-ink-100 text-ink-700",
  brand: "bg-brand-100 text-brand-800",
  green: "bg-emerald-100 text-emerald-800",
  amber: "bg-amber-100 text-amber-900",
  red: "bg-rose-100 text-rose-800",
  blue: "bg-sky-100 text-sky-800",
};
export function Badge({ tone = "neutral", children }: { tone?: keyof typeof badgeTones; children: ReactNode }) {
  return <span className={cx("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap", badgeTones[tone])}>{children}</span>;
}

export function Skeleton({ className }: { className?: string }) {
  return <div className={cx("animate-pulse rounded-md bg-ink-200/70", className)} aria-hidden="true" />;
}

/** `count` placeholder bars of one size (a list loading). They never move or change, so a bar's
 * number is its key. */
export function Skeletons({ count, className }: { count: number; className: string }) {
  const bars = Array.from({ length: count }, (_, i) => `bar-${i + 1}`);
  return (
    <>
      {bars.map((k) => (
        <Skeleton key={k} className={className} />
      ))}
    </>
  );
}

/** A page-sized loading placeholder with an accessible label. */
export function PageSkeleton({ rows = 5 }: { rows?: number }) {
  return (
    <div className="space-y-4" role="status" aria-label="Loading">
      <Skeleton className="h-8 w-64" />
      <Skeletons count={rows} className="h-14 w-full" />
    </div>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center rounded-xl border border-dashed border-ink-300 bg-white px-6 py-12 text-center">
      <svg viewBox="0 0 24 24" className="size-10 text-ink-300" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
        <rect x="3.5" y="5" width="17" height="14" rx="2" />
        <path d="M3.5 9h17M8 13h5" strokeLinecap="round" />
      </svg>
      <h3 className="mt-3 text-sm font-semibold text-ink-900">{title}</h3>
      {children ? <div className="mt-1 max-w-md text-sm text-ink-600">{children}</div> : null}
      {action ? <div className="mt-5">{action}</div> : null}
    </div>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
      <div className="min-w-0">
        <h1 className="truncate text-2xl font-semibold text-ink-900">{title}</h1>
        {subtitle ? <p className="mt-1 text-sm text-ink-600">{subtitle}</p> : null}
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

/** Tabs as links: the tab is part of the URL. */
export function TabLinks({ tabs, active, label }: { tabs: { id: string; label: string; href: string }[]; active: string; label: string }) {
  return (
    <nav aria-label={label} className="mb-6 flex gap-1 overflow-x-auto border-b border-ink-200">
      {tabs.map((t) => (
        <Link
          key={t.id}
          href={t.href}
          aria-current={t.id === active ? "page" : undefined}
          className={cx(
            "-mb-px border-b-2 px-3 py-2.5 text-sm font-medium whitespace-nowrap",
            t.id === active ? "border-brand-600 text-brand-700" : "border-transparent text-ink-600 hover:border-ink-300 hover:text-ink-900",
          )}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}

/** A simple, accessible data table. */
/** `dense`: narrow padding (px-2), for tables of short figures that must fit a phone; their cells use px-2 too. */
export function Table({ head, children, caption, dense = false }: { head: ReactNode[]; children: ReactNode; caption?: string; dense?: boolean }) {
  return (
    // Focusable so a table wider than the screen can be scrolled from the keyboard (axe).
    <div className="relative overflow-x-auto rounded-xl border border-ink-200 bg-white shadow-sm" tabIndex={0} {...(caption ? { role: "region", "aria-label": caption } : {})}>
      <table className="min-w-full divide-y divide-ink-100 text-sm">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead className="bg-ink-50">
          <tr>
            {keyedBy(head, (h) => (typeof h === "string" || typeof h === "number" ? String(h) : isValidElement(h) && h.key !== null ? h.key : "column")).map(([k, h]) => (
              <th key={k} scope="col" className={cx(dense ? "px-2" : "px-4", "py-2.5 text-left text-xs font-semibold tracking-wide text-ink-600 uppercase")}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-ink-100">{children}</tbody>
      </table>
    </div>
  );
}
