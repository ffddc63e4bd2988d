// Where a line chart's vertical markers put their labels (Charts.tsx Lines).
/**
 * The side of its line each marker's label goes on: away from the nearer neighbouring marker, so
 * two close price points (PMC and optimal, optimal and indifferent often are) print their labels
 * outwards instead of over each other (seen at 390 px). Sorted by x.
 */
export function markerSides<M extends { x: number }>(markers: readonly M[]): (M & { side: "left" | "right" })[] {
  const sorted = [...markers].sort((a, b) => a.x - b.x);
  return sorted.map((m, i) => {
    const left = i > 0 ? m.x - sorted[i - 1]!.x : Infinity;
    const right = i < sorted.length - 1 ? sorted[i + 1]!.x - m.x : Infinity;
    return { ...m, side: left < right ? "right" : "left" };
  });
}
