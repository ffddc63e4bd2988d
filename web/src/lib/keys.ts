// React keys for list items that have no id of their own (the lines of a label, the blocks of a
// Markdown text, a table's column heads): the item's text, with its occurrence number for a repeat
// ("a", "a#2"). Unlike a position, such a key stays with its item when items are added or removed
// before it, so React keeps each row's element (and its state) with the row.
export function keyedBy<T>(items: readonly T[], text: (item: T) => string): [key: string, item: T][] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const t = text(item);
    const n = (seen.get(t) ?? 0) + 1;
    seen.set(t, n);
    return [n === 1 ? t : `${t}#${n}`, item];
  });
}
