// bun run build: the web app into dist/web (Bun's HTML bundler, production React, Tailwind through
// bun-plugin-tailwind, code-split by route area), then the initial JavaScript of the login page
// (the entry, its static imports, and the auth area's chunks), gzipped, against the 250 KB budget.
import tailwind from "bun-plugin-tailwind";
import { gzipSync } from "node:zlib";
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "dist/web");
const LOGIN_BUDGET_KB = 250;

rmSync(OUT, { recursive: true, force: true });
process.env.NODE_ENV = "production";
const result = await Bun.build({
  entrypoints: [join(ROOT, "web/index.html")],
  outdir: OUT,
  target: "browser",
  minify: true,
  splitting: true,
  sourcemap: "none",
  publicPath: "/",
  plugins: [tailwind],
  metafile: true,
  naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
} as Parameters<typeof Bun.build>[0]);
if (!result.success) {
  for (const l of result.logs) console.error(l);
  process.exit(1);
}

type Meta = { outputs: Record<string, { entryPoint?: string; imports?: { path: string; kind: string }[] }> };
const meta = (result as unknown as { metafile: Meta }).metafile;
const norm = (p: string) => p.replace(/^\.\//, "");
/** A chunk and the chunks it imports statically: what loads before it runs. */
function closure(start: string[], seen = new Set<string>()): Set<string> {
  for (const s of start.map(norm)) {
    if (seen.has(s)) continue;
    seen.add(s);
    const imports = meta.outputs[`./${s}`]?.imports ?? [];
    closure(
      imports.filter((i) => i.kind === "import-statement").map((i) => i.path),
      seen,
    );
  }
  return seen;
}
const entries = Object.entries(meta.outputs);
const entryJs = entries.find(([k, v]) => k.endsWith(".js") && v.entryPoint?.endsWith("index.html"))?.[0];
const authJs = entries.find(([, v]) => v.entryPoint?.endsWith("routes/auth/AuthArea.tsx"))?.[0];
if (!entryJs || !authJs) throw new Error("build: the entry or the auth area chunk is missing from the metafile");
const login = closure([entryJs, authJs]);
const gz = (f: string) => gzipSync(readFileSync(join(OUT, f))).length;
const loginGz = [...login].reduce((n, f) => n + gz(f), 0);
const allJs = entries.filter(([k]) => k.endsWith(".js")).map(([k]) => norm(k));
const allGz = allJs.reduce((n, f) => n + gz(f), 0);
const kb = (n: number) => (n / 1024).toFixed(1);
console.log(`web: ${allJs.length} JavaScript chunks, ${kb(allGz)} KB gzip in all`);
console.log(`web: login page initial JavaScript ${kb(loginGz)} KB gzip in ${login.size} files (budget ${LOGIN_BUDGET_KB} KB)`);
if (loginGz > LOGIN_BUDGET_KB * 1024) {
  console.error(`web: the login page's initial JavaScript is over its ${LOGIN_BUDGET_KB} KB budget`);
  process.exit(1);
}

// Every text asset of the build also as brotli (quality 11) and gzip (level 9) copies beside it, made
// once here so the server sends them by Accept-Encoding without compressing per request
// (api/src/web/static.ts). A copy that is not smaller is not written.
const { brotliCompressSync, constants } = await import("node:zlib");
const { readdirSync, writeFileSync } = await import("node:fs");
const TEXT = /^assets\/.*\.(js|css|svg|json|txt|map)$/;
let raw = 0;
let br = 0;
for (const f of readdirSync(OUT, { recursive: true, encoding: "utf8" })) {
  if (!TEXT.test(f)) continue;
  const bytes = readFileSync(join(OUT, f));
  const b = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
  const g = gzipSync(bytes, { level: 9 });
  if (b.length < bytes.length) writeFileSync(join(OUT, `${f}.br`), b);
  if (g.length < bytes.length) writeFileSync(join(OUT, `${f}.gz`), g);
  raw += bytes.length;
  br += Math.min(b.length, bytes.length);
}
console.log(`web: precompressed ${kb(raw)} KB of text to ${kb(br)} KB brotli (.br and .gz beside each file)`);
