// Reading the exports as files, from their XML (not through the libraries that wrote them): a
// workbook's sheets as cells (shared strings, inline strings and numbers resolved), a deck's slides
// as paragraphs and table rows. Used by the tests that compare what an export shows with the API.
import JSZip from "jszip";

const decode = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&amp;/g, "&");

/** The text runs (<a:t> or <t>) of an XML fragment, joined. */
const runs = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, "g"))].map((m) => decode(m[1]!)).join("");

export type CellValue = string | number;
/** A sheet: row number to column letters to value. */
export type Sheet = Map<number, Map<string, CellValue>>;

/** Every sheet of an xlsx by its name, with its cells' values. */
export async function readXlsx(body: ArrayBuffer | Uint8Array): Promise<Map<string, Sheet>> {
  const zip = await JSZip.loadAsync(body);
  const text = async (name: string) => (await zip.file(name)?.async("string")) ?? "";
  const shared = [...(await text("xl/sharedStrings.xml")).matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) => runs(m[1]!, "t"));
  // A <Relationship>'s attributes come in any order.
  const rels = new Map<string, string>();
  for (const m of (await text("xl/_rels/workbook.xml.rels")).matchAll(/<Relationship ([^>]*)\/?>/g)) {
    const id = m[1]!.match(/Id="([^"]+)"/)?.[1];
    const target = m[1]!.match(/Target="([^"]+)"/)?.[1];
    if (id && target) rels.set(id, target);
  }
  const out = new Map<string, Sheet>();
  for (const m of (await text("xl/workbook.xml")).matchAll(/<sheet ([^>]*)\/>/g)) {
    const name = decode(m[1]!.match(/name="([^"]*)"/)![1]!);
    const rid = m[1]!.match(/r:id="([^"]*)"/)![1]!;
    const target = rels.get(rid)!.replace(/^\/?xl\//, "");
    const xml = await text(`xl/${target}`);
    const sheet: Sheet = new Map();
    for (const c of xml.matchAll(/<c r="([A-Z]+)(\d+)"([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const [, col, row, attrs, inner] = c;
      if (inner === undefined) continue;
      const t = attrs!.match(/t="([^"]+)"/)?.[1];
      const v = inner.match(/<v>([^<]*)<\/v>/)?.[1];
      let value: CellValue | undefined;
      if (t === "s" && v !== undefined) value = shared[Number(v)]!;
      else if (t === "inlineStr") value = runs(inner, "t");
      else if (t === "str" || t === "e") value = v === undefined ? "" : decode(v);
      else if (t === "b") value = v === "1" ? "TRUE" : "FALSE";
      else if (v !== undefined) value = Number(v);
      if (value === undefined) continue;
      const r = Number(row);
      (sheet.get(r) ?? sheet.set(r, new Map()).get(r)!).set(col!, value);
    }
    out.set(name, sheet);
  }
  return out;
}

/** A sheet's rows in order, each as its cells' values from column A (missing cells as null). */
export function rowsOf(sheet: Sheet): (CellValue | null)[][] {
  const colIndex = (c: string) => [...c].reduce((a, ch) => a * 26 + ch.charCodeAt(0) - 64, 0) - 1;
  return [...sheet.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, cells]) => {
      const row: (CellValue | null)[] = [];
      for (const [c, v] of cells) row[colIndex(c)] = v;
      return Array.from(row, (x) => x ?? null);
    });
}

export interface SlideText {
  /** ppt/slides/slideN.xml's N. */
  number: number;
  /** Every paragraph's text (outside tables and inside them). */
  paragraphs: string[];
  /** Every table row: its cells' texts. */
  rows: string[][];
  /** Every text run of the slide, joined by spaces. */
  all: string;
}

/** A deck's slides in order, as paragraphs and table rows. */
export async function readPptx(body: ArrayBuffer | Uint8Array): Promise<SlideText[]> {
  const zip = await JSZip.loadAsync(body);
  const names = Object.keys(zip.files)
    .filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
  const out: SlideText[] = [];
  for (const name of names) {
    const xml = await zip.file(name)!.async("string");
    const paragraphs = [...xml.matchAll(/<a:p>([\s\S]*?)<\/a:p>/g)].map((m) => runs(m[1]!, "a:t")).filter((p) => p.length > 0);
    const rows = [...xml.matchAll(/<a:tr[^>]*>([\s\S]*?)<\/a:tr>/g)].map((tr) =>
      [...tr[1]!.matchAll(/<a:tc[^>]*>([\s\S]*?)<\/a:tc>/g)].map((tc) =>
        [...tc[1]!.matchAll(/<a:p>([\s\S]*?)<\/a:p>/g)]
          .map((p) => runs(p[1]!, "a:t"))
          .join(" ")
          .trim(),
      ),
    );
    out.push({ number: Number(name.match(/\d+/)![0]), paragraphs, rows, all: paragraphs.join(" ") });
  }
  return out;
}
