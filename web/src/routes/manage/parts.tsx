// Small pieces of the management pages.
import { Card, Skeleton } from "../../components/ui";
import { formatCredits } from "./manage";

/** A key figure: a label, a number (or a skeleton while it loads), a hint. */
export function Figure({
  label,
  value,
  loading,
  hint,
  format = formatCredits,
}: {
  label: string;
  value: number | null | undefined;
  loading?: boolean;
  hint?: string;
  format?: (n: number | null | undefined) => string;
}) {
  return (
    <Card>
      <p className="text-xs font-medium tracking-wide text-ink-600 uppercase">{label}</p>
      {loading ? <Skeleton className="mt-2 h-7 w-24" /> : <p className="mt-1 text-xl font-semibold sm:text-2xl text-ink-900 tabular-nums">{format(value)}</p>}
      {hint ? <p className="mt-1 text-xs text-ink-500">{hint}</p> : null}
    </Card>
  );
}

/**
 * A column heading only screen readers read. The relative wrapper keeps the visually hidden text
 * inside the table's scroll box; without it the absolutely positioned text widens the page.
 */
export function HiddenHead({ children }: { children: string }) {
  return (
    <span className="relative">
      <span className="sr-only">{children}</span>
    </span>
  );
}
