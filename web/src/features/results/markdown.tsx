// Model output (AI summaries) as formatted text: the Markdown subset the summaries write (## and
// ### headings, paragraphs, "-" / "*" / "1." lists, **bold**, _italic_ / *italic*, `code`) parsed
// into React elements. Nothing is ever handed to the DOM as HTML: every piece of text is a React
// text node, so a "<script>" in the output is shown as those characters. Figure references
// ("[F3]") become small reference marks titled with the figure they cite.
import { Fragment, type ReactNode } from "react";
import { keyedBy } from "../../lib/keys";

export type Block = { kind: "heading"; level: 2 | 3 | 4; text: string } | { kind: "paragraph"; text: string } | { kind: "list"; ordered: boolean; items: string[] };

/** Splits Markdown text into blocks (pure: the tests read it). */
export function markdownBlocks(src: string): Block[] {
  const out: Block[] = [];
  let para: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flush = () => {
    if (para.length) out.push({ kind: "paragraph", text: para.join(" ") });
    para = [];
    if (list) out.push({ kind: "list", ...list });
    list = null;
  };
  for (const raw of src.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.trim();
    if (!line) {
      flush();
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      // The page has its own h1 and h2: a summary's headings start at h3.
      const level = Math.min(4, Math.max(2, h[1]!.length)) as 2 | 3 | 4;
      out.push({ kind: "heading", level, text: h[2]!.replace(/\s+#+$/, "") });
      continue;
    }
    const li = /^(?:([-*+])|(\d{1,3})[.)])\s+(.*)$/.exec(line);
    if (li) {
      const ordered = li[2] !== undefined;
      if (para.length || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(li[3]!);
      continue;
    }
    if (list) {
      // A continuation line of the last item.
      list.items[list.items.length - 1] += ` ${line}`;
      continue;
    }
    para.push(line);
  }
  flush();
  return out;
}

export type Inline = { kind: "text" | "strong" | "em" | "code" | "ref"; text: string };

/** Inline marks: **bold**, __bold__, *italic*, _italic_, `code` and figure references [F12]. */
export function inlineMarks(text: string): Inline[] {
  const out: Inline[] = [];
  const re = /\*\*([^*]+?)\*\*|__([^_]+?)__|`([^`]+)`|\[(F\d+)\]|(?<![\w*])\*(?!\s)([^*]+?)(?<!\s)\*(?![\w*])|(?<![\w_])_(?!\s)([^_]+?)(?<!\s)_(?![\w_])/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push({ kind: "text", text: text.slice(last, m.index) });
    if (m[1] !== undefined || m[2] !== undefined) out.push({ kind: "strong", text: (m[1] ?? m[2])! });
    else if (m[3] !== undefined) out.push({ kind: "code", text: m[3] });
    else if (m[4] !== undefined) out.push({ kind: "ref", text: m[4] });
    else out.push({ kind: "em", text: (m[5] ?? m[6])! });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}

function InlineText({ text, refs }: { text: string; refs?: Map<string, string> }) {
  return (
    <>
      {keyedBy(inlineMarks(text), (p) => `${p.kind}:${p.text}`).map(([k, p]) => {
        switch (p.kind) {
          case "strong":
            return (
              <strong key={k} className="font-semibold text-ink-900">
                {p.text}
              </strong>
            );
          case "em":
            return <em key={k}>{p.text}</em>;
          case "code":
            return (
              <code key={k} className="rounded bg-ink-100 px-1 text-[0.9em]">
                {p.text}
              </code>
            );
          case "ref": {
            const title = refs?.get(p.text);
            return (
              <sup key={k} className="ml-0.5 text-[0.7em] text-ink-500" title={title ? `${p.text}: ${title}` : p.text}>
                {p.text}
              </sup>
            );
          }
          default:
            return <Fragment key={k}>{p.text}</Fragment>;
        }
      })}
    </>
  );
}

/** Markdown text as React elements; `refs` titles the figure references (ref -> the figure's text). */
export function Markdown({ text, refs, className }: { text: string; refs?: Map<string, string>; className?: string }): ReactNode {
  const blocks = markdownBlocks(text);
  return (
    <div className={className ?? "space-y-3 text-sm leading-6 text-ink-800"} data-testid="markdown">
      {keyedBy(blocks, (b) => `${b.kind}:${b.kind === "list" ? b.items.join("\n") : b.text}`).map(([k, b]) => {
        if (b.kind === "heading") {
          const Tag = (["h3", "h4", "h5"] as const)[b.level - 2]!;
          return (
            <Tag key={k} className={b.level === 2 ? "text-base font-semibold text-ink-900" : "text-sm font-semibold text-ink-900"}>
              <InlineText text={b.text} refs={refs} />
            </Tag>
          );
        }
        if (b.kind === "list") {
          const items = keyedBy(b.items, (t) => t).map(([j, t]) => (
            <li key={j}>
              <InlineText text={t} refs={refs} />
            </li>
          ));
          return b.ordered ? (
            <ol key={k} className="list-decimal space-y-1 pl-5">
              {items}
            </ol>
          ) : (
            <ul key={k} className="list-disc space-y-1 pl-5">
              {items}
            </ul>
          );
        }
        return (
          <p key={k}>
            <InlineText text={b.text} refs={refs} />
          </p>
        );
      })}
    </div>
  );
}
