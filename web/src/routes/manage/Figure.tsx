// A key figure of the management pages: a label, a number (or a skeleton while it loads), a hint.
import { Card, Skeleton } from "../../components/ui";
import { formatCredits } from "./manage";

export function Figure({ label, value, loading, hint, format = formatCredits }: { label: string; value: number | null | undefined; loading?: boolean; hint?: string; format?: (n: number | null | undefined) => string }) {
  return (
    <Card>
      <p className="text-xs font-medium tracking-wide text-ink-600 uppercase">{label}</p>
      {loading ? <Skeleton className="mt-2 h-7 w-24" /> : <p className="mt-1 text-2xl font-semibold text-ink-900 tabular-nums">{format(value)}</p>}
      {hint ? <p className="mt-1 text-xs text-ink-500">{hint}</p> : null}
    </Card>
  );
}
