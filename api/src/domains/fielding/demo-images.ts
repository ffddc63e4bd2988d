// Concept images of the demo projects (development starts only): each demo concept of a product
// gets a small product picture, so the concept pages, the test-info preview and the PowerPoint deck
// show an image in the demo as they do for a researcher's upload.
//
// Provenance: the pictures are drawn here, by this code, from a few flat shapes (bags, crackers,
// crisps, bars, cans, phones) in plain colours; nothing is downloaded or copied. They are encoded
// as PNG (zlib deflate of the RGBA rows, CRC-32 per chunk, as the PNG specification, RFC 2083,
// lays out) and stored the way an upload is: a key of the project's client from the same scheme
// FileUploadUrl uses, written through the configured file storage (the local store's checked
// write, or a PUT to a signed S3 URL), and the test option's `file` reference set to it.
import { deflateSync } from "node:zlib";
import type { Db } from "../../db/client.ts";
import { LocalDiskStorage } from "../../storage/local.ts";
import { FILE_TYPES, safeFileName, type FileStorage } from "../../storage/storage.ts";

type Rgb = readonly [number, number, number];
type Shape =
  | { kind: "rect"; x: number; y: number; w: number; h: number; r?: number; fill: Rgb }
  | { kind: "ellipse"; cx: number; cy: number; rx: number; ry: number; fill: Rgb }
  | { kind: "poly"; pts: readonly (readonly [number, number])[]; fill: Rgb };

export const IMAGE_W = 480;
export const IMAGE_H = 360;

const hex = (h: string): Rgb => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];

function inside(s: Shape, x: number, y: number): boolean {
  switch (s.kind) {
    case "rect": {
      if (x < s.x || x > s.x + s.w || y < s.y || y > s.y + s.h) return false;
      const r = Math.min(s.r ?? 0, s.w / 2, s.h / 2);
      if (!r) return true;
      // The corners are quarter circles of radius r.
      // The nearest corner centre (r is at most half the width and height, so the range is never empty).
      const cx = Math.min(Math.max(x, s.x + r), s.x + s.w - r);
      const cy = Math.min(Math.max(y, s.y + r), s.y + s.h - r);
      return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
    }
    case "ellipse":
      return ((x - s.cx) / s.rx) ** 2 + ((y - s.cy) / s.ry) ** 2 <= 1;
    case "poly": {
      // Even-odd rule: a ray to the right crosses the outline an odd number of times.
      let odd = false;
      for (let i = 0, j = s.pts.length - 1; i < s.pts.length; j = i++) {
        const [xi, yi] = s.pts[i]!;
        const [xj, yj] = s.pts[j]!;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
      }
      return odd;
    }
  }
}

/** Paints the shapes in order over the background, 3 x 3 samples a pixel (smooth edges); RGBA rows. */
export function render(background: Rgb, shapes: readonly Shape[], w = IMAGE_W, h = IMAGE_H): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  const SUB = 3;
  // Each shape's bounding box: most samples skip most shapes without the finer test.
  const boxes = shapes.map((s) => {
    if (s.kind === "rect") return [s.x, s.y, s.x + s.w, s.y + s.h] as const;
    if (s.kind === "ellipse") return [s.cx - s.rx, s.cy - s.ry, s.cx + s.rx, s.cy + s.ry] as const;
    const xs = s.pts.map((p) => p[0]);
    const ys = s.pts.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as const;
  });
  for (let py = 0; py < h; py++) {
    for (let px = 0; px < w; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sy = 0; sy < SUB; sy++) {
        for (let sx = 0; sx < SUB; sx++) {
          const x = px + (sx + 0.5) / SUB;
          const y = py + (sy + 0.5) / SUB;
          let c = background;
          for (let i = shapes.length - 1; i >= 0; i--) {
            const [x0, y0, x1, y1] = boxes[i]!;
            if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && inside(shapes[i]!, x, y)) {
              c = shapes[i]!.fill;
              break;
            }
          }
          r += c[0];
          g += c[1];
          b += c[2];
        }
      }
      const o = (py * w + px) * 4;
      out[o] = Math.round(r / (SUB * SUB));
      out[o + 1] = Math.round(g / (SUB * SUB));
      out[o + 2] = Math.round(b / (SUB * SUB));
      out[o + 3] = 255;
    }
  }
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An 8-bit RGBA PNG of the pixels (filter type 0 on every row). */
export function encodePng(rgba: Uint8Array, w: number, h: number): Uint8Array<ArrayBuffer> {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, w);
  v.setUint32(4, h);
  ihdr.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, filter 0, no interlace
  const raw = new Uint8Array(h * (1 + w * 4));
  for (let y = 0; y < h; y++) raw.set(rgba.subarray(y * w * 4, (y + 1) * w * 4), y * (1 + w * 4) + 1);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", new Uint8Array(deflateSync(raw, { level: 9 }))), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// ---- the pictures ----

const shade = (c: Rgb, k: number): Rgb => [Math.round(c[0] * k), Math.round(c[1] * k), Math.round(c[2] * k)];
/** The shadow an object casts on the floor: the background, darker. */
const floorShadow = (bg: Rgb, cx: number, w: number): Shape => ({ kind: "ellipse", cx, cy: 318, rx: w, ry: 14, fill: shade(bg, 0.82) });

/** The shapes moved down by dy pixels. */
function down(shapes: Shape[], dy: number): Shape[] {
  return shapes.map((s) =>
    s.kind === "rect" ? { ...s, y: s.y + dy } : s.kind === "ellipse" ? { ...s, cy: s.cy + dy } : { ...s, pts: s.pts.map(([x, y]) => [x, y + dy] as const) },
  );
}

/** A snack bag: crimped top and bottom, a label, a window onto what is inside. */
function bag(bg: Rgb, body: string, label: string, contents: Shape[]): Shape[] {
  // A crimped seal 22 px high, its zigzag edge outward (up at the top, down at the bottom).
  const crimp = (y: number, down: boolean): Shape => ({
    kind: "poly",
    pts: [...Array.from({ length: 19 }, (_, i) => [150 + i * 10, down ? y + 22 - (i % 2 ? 12 : 0) : y + (i % 2 ? 12 : 0)] as const), [330, down ? y : y + 22], [150, down ? y : y + 22]],
    fill: shade(hex(body), 0.8),
  });
  return [
    floorShadow(bg, 240, 110),
    { kind: "poly", pts: [[160, 50], [320, 50], [334, 300], [146, 300]], fill: hex(body) },
    crimp(34, false),
    crimp(292, true),
    { kind: "rect", x: 178, y: 84, w: 124, h: 36, r: 10, fill: hex(label) },
    { kind: "ellipse", cx: 240, cy: 200, rx: 66, ry: 62, fill: hex("#FFF8EC") },
    ...contents,
  ];
}

function can(x: number, body: string, band: string, w = 74, h = 190, top = 122): Shape[] {
  const metal: Rgb = hex("#C9CED6");
  return [
    { kind: "rect", x, y: top, w, h, r: 12, fill: hex(body) },
    { kind: "ellipse", cx: x + w / 2, cy: top + 2, rx: w / 2 - 2, ry: 9, fill: metal },
    { kind: "rect", x, y: top + h * 0.38, w, h: h * 0.2, fill: hex(band) },
    // A lightning bolt on the band.
    { kind: "poly", pts: [[x + w * 0.55, top + h * 0.3], [x + w * 0.3, top + h * 0.52], [x + w * 0.48, top + h * 0.52], [x + w * 0.4, top + h * 0.7], [x + w * 0.7, top + h * 0.45], [x + w * 0.52, top + h * 0.45]], fill: hex("#FFFFFF") },
  ];
}

function bar(bg: Rgb, wrapper: string, band: string, dots: string | null): Shape[] {
  const w = hex(wrapper);
  const dark = shade(w, 0.75);
  // The wrapper's crimped ends: a zigzag outer edge, a straight inner one.
  const crimp = (outer: number, inner: number): Shape => ({
    kind: "poly",
    pts: [...Array.from({ length: 13 }, (_, i) => [i % 2 ? outer + Math.sign(inner - outer) * 16 : outer, 130 + i * 10] as const), [inner, 250], [inner, 130]],
    fill: dark,
  });
  return [
    floorShadow(bg, 240, 180),
    ...down([
    { kind: "rect", x: 80, y: 134, w: 320, h: 112, r: 8, fill: w },
    crimp(56, 86),
    crimp(424, 394),
    { kind: "rect", x: 180, y: 134, w: 120, h: 112, fill: hex(band) },
    { kind: "rect", x: 196, y: 168, w: 88, h: 44, r: 22, fill: w },
    ...(dots ? [[120, 160], [140, 205], [340, 170], [360, 215], [130, 228], [350, 148]].map(([cx, cy]) => ({ kind: "ellipse" as const, cx: cx!, cy: cy!, rx: 5, ry: 5, fill: hex(dots) })) : []),
    ], 50),
  ];
}

function phone(x: number, y: number, w: number, h: number, body: string, screen: string): Shape[] {
  return [
    { kind: "rect", x, y, w, h, r: w * 0.16, fill: hex(body) },
    { kind: "rect", x: x + w * 0.08, y: y + h * 0.07, w: w * 0.84, h: h * 0.84, r: w * 0.06, fill: hex(screen) },
  ];
}

interface Picture {
  background: Rgb;
  shapes: Shape[];
}

/** The picture of a demo concept by its text; null for a concept without one (a message). */
export function demoPicture(conceptText: string): Picture | null {
  const bg = (h: string) => hex(h);
  switch (conceptText) {
    case "Crunchy chickpea puffs": {
      const b = bg("#FDF1E3");
      const puff = (cx: number, cy: number, r: number): Shape => ({ kind: "ellipse", cx, cy, rx: r, ry: r * 0.9, fill: hex("#E2B04A") });
      return { background: b, shapes: bag(b, "#C2410C", "#FDE68A", [puff(212, 190, 20), puff(250, 176, 22), puff(270, 214, 19), puff(226, 228, 18), { kind: "ellipse", cx: 258, cy: 172, rx: 5, ry: 4, fill: hex("#B45309") }, { kind: "ellipse", cx: 218, cy: 186, rx: 4, ry: 4, fill: hex("#B45309") }]) };
    }
    case "Seaweed rice crackers": {
      const b = bg("#EAF4EE");
      // A round cracker seen from the side: its rim, its top, a strip of nori across the top.
      const cracker = (cx: number, cy: number): Shape[] => [
        { kind: "ellipse", cx, cy: cy + 7, rx: 62, ry: 22, fill: hex("#D9C29A") },
        { kind: "ellipse", cx, cy, rx: 62, ry: 22, fill: hex("#F3E3C3") },
        { kind: "poly", pts: [[cx - 12, cy - 21], [cx + 12, cy - 21], [cx + 12, cy + 21], [cx - 12, cy + 21]], fill: hex("#1F3B2C") },
      ];
      return { background: b, shapes: [floorShadow(b, 240, 150), { kind: "ellipse", cx: 240, cy: 262, rx: 170, ry: 46, fill: hex("#FFFFFF") }, ...cracker(170, 252), ...cracker(310, 252), ...cracker(240, 224), ...cracker(240, 184), ...cracker(240, 144)] };
    }
    case "Veggie crisps trio": {
      const b = bg("#FBF3E8");
      const crisp = (cx: number, cy: number, rx: number, ry: number, fill: string): Shape => ({ kind: "ellipse", cx, cy, rx, ry, fill: hex(fill) });
      return {
        background: b,
        shapes: [
          floorShadow(b, 240, 160),
          { kind: "poly", pts: [[70, 200], [410, 200], [360, 300], [120, 300]], fill: hex("#3F6212") },
          { kind: "rect", x: 60, y: 190, w: 360, h: 18, r: 9, fill: hex("#4D7C0F") },
          crisp(150, 170, 54, 36, "#9D174D"),
          crisp(240, 150, 56, 40, "#F5E6C8"),
          crisp(330, 172, 52, 36, "#EA580C"),
          crisp(195, 196, 40, 24, "#BE185D"),
          crisp(285, 196, 42, 24, "#FB923C"),
        ],
      };
    }
    case "Peanut butter crunch bar": {
      const b = bg("#FEF6E7");
      return { background: b, shapes: bar(b, "#B7791F", "#FDE68A", null) };
    }
    case "Dark chocolate sea salt bar": {
      const b = bg("#F1ECE8");
      return { background: b, shapes: bar(b, "#3B2314", "#E7D7C9", "#FFFFFF") };
    }
    case "Tropical mango":
      return { background: bg("#FFF4DC"), shapes: [floorShadow(bg("#FFF4DC"), 240, 70), ...can(203, "#F59E0B", "#DC2626")] };
    case "Wild berry":
      return { background: bg("#F5EDF8"), shapes: [floorShadow(bg("#F5EDF8"), 240, 70), ...can(203, "#6D28D9", "#BE185D")] };
    case "Citrus yuzu":
      return { background: bg("#FAFBE4"), shapes: [floorShadow(bg("#FAFBE4"), 240, 70), ...can(203, "#CA8A04", "#65A30D")] };
    case "Cola lime":
      return { background: bg("#EEF5EA"), shapes: [floorShadow(bg("#EEF5EA"), 240, 70), ...can(203, "#5B3A29", "#4D7C0F")] };
    case "Green apple":
      return { background: bg("#ECF8EC"), shapes: [floorShadow(bg("#ECF8EC"), 240, 70), ...can(203, "#15803D", "#A3E635")] };
    case "Fizz & Co. sparkling water": {
      const b = bg("#E8F4FA");
      const bubble = (cx: number, cy: number, r: number): Shape => ({ kind: "ellipse", cx, cy, rx: r, ry: r, fill: hex("#BFE3F5") });
      return {
        background: b,
        shapes: [
          floorShadow(b, 240, 60),
          bubble(150, 120, 10), bubble(130, 170, 6), bubble(330, 140, 8), bubble(345, 200, 5), bubble(160, 230, 7),
          { kind: "rect", x: 210, y: 84, w: 60, h: 226, r: 10, fill: hex("#7CC4E4") },
          { kind: "ellipse", cx: 240, cy: 86, rx: 28, ry: 8, fill: hex("#C9CED6") },
          { kind: "rect", x: 210, y: 170, w: 60, h: 50, fill: hex("#FFFFFF") },
          { kind: "ellipse", cx: 240, cy: 195, rx: 18, ry: 18, fill: hex("#65A30D") },
          { kind: "ellipse", cx: 240, cy: 195, rx: 14, ry: 14, fill: hex("#D9F99D") },
          { kind: "poly", pts: [[239, 181], [241, 181], [241, 209], [239, 209]], fill: hex("#65A30D") },
          { kind: "poly", pts: [[226, 194], [254, 194], [254, 196], [226, 196]], fill: hex("#65A30D") },
        ],
      };
    }
    case "Unlimited everything, one price": {
      const b = bg("#EEF2FF");
      return {
        background: b,
        shapes: [
          floorShadow(b, 240, 70),
          ...phone(182, 50, 116, 250, "#1E1B4B", "#6366F1"),
          // An infinity sign on the screen: two rings.
          { kind: "ellipse", cx: 222, cy: 175, rx: 22, ry: 16, fill: hex("#FFFFFF") },
          { kind: "ellipse", cx: 258, cy: 175, rx: 22, ry: 16, fill: hex("#FFFFFF") },
          { kind: "ellipse", cx: 222, cy: 175, rx: 13, ry: 8, fill: hex("#6366F1") },
          { kind: "ellipse", cx: 258, cy: 175, rx: 13, ry: 8, fill: hex("#6366F1") },
        ],
      };
    }
    case "Family share plan": {
      const b = bg("#ECFDF5");
      const sizes: [number, number, number, number][] = [[40, 150, 64, 136], [120, 120, 72, 166], [204, 90, 80, 196], [296, 120, 72, 166], [380, 150, 64, 136]];
      return { background: b, shapes: [floorShadow(b, 240, 210), ...sizes.flatMap(([x, y, w, h], i) => phone(x, y + 20, w, h, "#064E3B", ["#34D399", "#10B981", "#059669", "#10B981", "#34D399"][i]!))] };
    }
    default:
      return null;
  }
}

export function demoPng(conceptText: string): Uint8Array<ArrayBuffer> | null {
  const p = demoPicture(conceptText);
  return p ? encodePng(render(p.background, p.shapes), IMAGE_W, IMAGE_H) : null;
}

/** Stores the bytes at `key` as an upload would be: the local store's checked write, or a PUT to a signed S3 URL. */
async function store(storage: FileStorage, publicUrl: string, key: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  const type = "image/png";
  if (storage instanceof LocalDiskStorage) {
    await storage.write(key, new Blob([bytes]).stream(), type, FILE_TYPES[type]!.maxBytes);
    return;
  }
  const url = await storage.uploadUrl({ key, contentType: type, maxBytes: bytes.length, size: bytes.length, baseUrl: publicUrl });
  const res = await fetch(url.url, { method: "PUT", headers: url.headers, body: new Blob([bytes]), signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`storing the demo image ${key}: HTTP ${res.status}`);
}

/**
 * Gives the demo projects' product concepts their pictures (those still without a file). Returns
 * how many it stored.
 */
export async function seedDemoImages(db: Db, storage: FileStorage, publicUrl: string, projectIds: readonly number[]): Promise<number> {
  if (!projectIds.length) return 0;
  const options = await db<{ id: number; clientId: number; projectId: number; conceptText: string }[]>`
    select id, client_id as "clientId", project_id as "projectId", concept_text as "conceptText"
    from test_options where project_id = any(${projectIds as number[]}::int[]) and deleted_at is null and file is null order by id`;
  let n = 0;
  for (const o of options) {
    const png = demoPng(o.conceptText);
    if (!png) continue;
    const fileName = safeFileName(o.conceptText, "image/png");
    const key = `clients/${o.clientId}/projects/${o.projectId}/${crypto.randomUUID()}/${fileName}`;
    await store(storage, publicUrl, key, png);
    await db`update test_options set file = ${db.json({ key, fileType: "image/png", fileName })} where id = ${o.id}`;
    n++;
  }
  return n;
}
