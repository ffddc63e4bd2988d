// The questionnaire's order, pure (no DOM, no calls): SPEC 3's display groups, SPEC 9's sort key,
// and a move within one position group as ProjectQuestions SortOrderChange takes it.
import { QUESTION_DISPLAY_GROUPS, questionSortKey } from "../../lib/constants";

type Ordered = { id: number; questionPositionId: number; sortOrder: number | null };

/** Display groups in SPEC 3's order, each sorted by the sort key, empty groups left out. */
export function groupQuestions<T extends Ordered>(list: T[]) {
  return QUESTION_DISPLAY_GROUPS.map((g) => ({
    ...g,
    items: list.filter((q) => g.positions.includes(q.questionPositionId)).sort((a, b) => questionSortKey(a) - questionSortKey(b)),
  })).filter((g) => g.items.length);
}

/** The questions sharing `positionId`, in their order: what SortOrderChange reorders as a whole. */
export function positionGroup<T extends Ordered>(list: T[], positionId: number): T[] {
  return list.filter((q) => q.questionPositionId === positionId).sort((a, b) => questionSortKey(a) - questionSortKey(b));
}

/** The new order of one position group after moving `id` to `toIndex` within it. */
export function reorder(ids: number[], id: number, toIndex: number): number[] {
  const rest = ids.filter((x) => x !== id);
  rest.splice(Math.max(0, Math.min(toIndex, rest.length)), 0, id);
  return rest;
}

/** The list with the new order's sort orders applied (1, 2, ...): the optimistic view. */
export function applyOrder<T extends Ordered>(list: T[], ids: number[]): T[] {
  const order = new Map(ids.map((id, i) => [id, i + 1]));
  return list.map((q) => (order.has(q.id) ? { ...q, sortOrder: order.get(q.id)! } : q));
}
