// The AI summary's Markdown as formatted text (issue 23: it was shown raw, "##", "**...**",
// "_..._"): the blocks and inline marks the summaries write, and model output never becoming HTML.
import { describe, expect, test } from "bun:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Markdown, inlineMarks, markdownBlocks } from "../../web/src/features/results/markdown";

// The shape the built-in provider writes (api/src/domains/ai/local.ts writeSummary).
const SUMMARY = [
  "## Plant-based snacks idea screen",
  "_Objective: Summarize the overall performance._",
  "**Veggie crisps trio** leads on Likability with 71.2% [F1] top-2-box (n = 200 [F2]).",
  "Audience skews on Likability:\n- Women (Gender) rate Veggie crisps trio higher: 80.1% [F3]\n- 18-24 (Age group) rate Oat bites lower",
  "1. first\n2. second",
].join("\n\n");

describe("markdownBlocks", () => {
  test("headings, paragraphs, bullet and numbered lists", () => {
    const b = markdownBlocks(SUMMARY);
    expect(b.map((x) => x.kind)).toEqual(["heading", "paragraph", "paragraph", "paragraph", "list", "list"]);
    expect(b[0]).toEqual({ kind: "heading", level: 2, text: "Plant-based snacks idea screen" });
    expect(b[4]).toEqual({ kind: "list", ordered: false, items: ["Women (Gender) rate Veggie crisps trio higher: 80.1% [F3]", "18-24 (Age group) rate Oat bites lower"] });
    expect(b[5]).toEqual({ kind: "list", ordered: true, items: ["first", "second"] });
  });
});

describe("inlineMarks", () => {
  test("bold, italic, code and figure references; underscores and stars inside words stay text", () => {
    expect(inlineMarks("**Veggie** leads _clearly_ at 71.2% [F1] `x`")).toEqual([
      { kind: "strong", text: "Veggie" },
      { kind: "text", text: " leads " },
      { kind: "em", text: "clearly" },
      { kind: "text", text: " at 71.2% " },
      { kind: "ref", text: "F1" },
      { kind: "text", text: " " },
      { kind: "code", text: "x" },
    ]);
    expect(inlineMarks("snake_case_name and 2*3*4")).toEqual([{ kind: "text", text: "snake_case_name and 2*3*4" }]);
  });
});

describe("<Markdown>", () => {
  test("renders formatted elements, no Markdown syntax left", () => {
    const html = renderToStaticMarkup(createElement(Markdown, { text: SUMMARY, refs: new Map([["F1", "71.2%"]]) }));
    expect(html).toContain("<h3");
    expect(html).toContain("<strong");
    expect(html).toContain("<em>Objective: Summarize the overall performance.</em>");
    expect(html).toContain("<ul");
    expect(html).toContain("<ol");
    expect(html).toContain('title="F1: 71.2%"');
    expect(html).not.toMatch(/##|\*\*|(^|\s)_\w/);
  });

  test("HTML in model output is text, never markup", () => {
    const html = renderToStaticMarkup(createElement(Markdown, { text: 'Hello <script>alert(1)</script> <img src=x onerror="alert(2)"> **<b>bold</b>**' }));
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});
