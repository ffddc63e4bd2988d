// The project editor's pure rules: SPEC 3's display groups in order with SPEC 9's sort key inside
// each (position 7 counted as 1), a move within one position group as SortOrderChange takes it,
// and the optimistic order.
import { describe, expect, test } from "bun:test";
import { applyOrder, groupQuestions, positionGroup, reorder } from "../../web/src/features/projects-editor/questions.ts";

const q = (id: number, questionPositionId: number, sortOrder: number | null) => ({ id, questionPositionId, sortOrder });

describe("groupQuestions", () => {
  test("groups by SPEC 3's display groups in the order respondents meet them, sorted by the sort key; empty groups go", () => {
    const list = [q(1, 5, 2), q(2, 5, 1), q(3, 6, 1), q(4, 1, 2), q(5, 7, 1), q(6, 4, 1), q(7, 2, 1), q(8, 8, 1), q(9, 3, 1), q(10, 12, 1)];
    const groups = groupQuestions(list);
    // The fielding engine asks the framework (5) inside each test option's loop, the follow-ups (3)
    // after all of them (api/src/domains/fielding/engine.ts pages()): the editor lists them so.
    expect(
      groups.map((g) => g.name),
      "Audience, Test, Framework, Follow-up, Custom, Usage & attitude",
    ).toEqual(["Audience", "Test", "Framework", "Follow-up", "Custom", "Usage & attitude"]);
    // Audience: 7 counts as 1, so BeforeLoop 1 (key 1,000,001) precedes Screener 2 (1,000,002); Awareness (4) last.
    expect(
      groups[0]!.items.map((x) => x.id),
      "position 7 sorts as 1",
    ).toEqual([5, 4, 6]);
    // Test: InsideLoop (2) before BeforeInsideLoop (8) by the key.
    expect(groups[1]!.items.map((x) => x.id)).toEqual([7, 8]);
    expect(
      groups[2]!.items.map((x) => x.id),
      "Framework by sortOrder",
    ).toEqual([2, 1]);
  });

  test("a missing sortOrder counts as 0", () => {
    expect(groupQuestions([q(1, 6, 3), q(2, 6, null)])[0]!.items.map((x) => x.id)).toEqual([2, 1]);
  });
});

describe("reorder within a position group", () => {
  test("moves up, down, to the ends, and clamps out-of-range targets", () => {
    expect(reorder([1, 2, 3, 4], 3, 0)).toEqual([3, 1, 2, 4]);
    expect(reorder([1, 2, 3, 4], 1, 2)).toEqual([2, 3, 1, 4]);
    expect(reorder([1, 2, 3, 4], 2, 3)).toEqual([1, 3, 4, 2]);
    expect(reorder([1, 2, 3, 4], 2, 99)).toEqual([1, 3, 4, 2]);
    expect(reorder([1, 2, 3, 4], 4, -1)).toEqual([4, 1, 2, 3]);
    expect(reorder([1, 2, 3], 2, 1), "a move to its own place changes nothing").toEqual([1, 2, 3]);
  });

  test("positionGroup is the whole group SortOrderChange needs, in order; applyOrder renumbers only it", () => {
    const list = [q(1, 5, 3), q(2, 5, 1), q(3, 6, 1), q(4, 5, 2)];
    expect(positionGroup(list, 5).map((x) => x.id)).toEqual([2, 4, 1]);
    const next = reorder([2, 4, 1], 1, 0);
    const applied = applyOrder(list, next);
    expect(
      positionGroup(applied, 5).map((x) => x.id),
      "the optimistic order",
    ).toEqual([1, 2, 4]);
    expect(applied.find((x) => x.id === 3)!.sortOrder, "another position is untouched").toBe(1);
  });
});
