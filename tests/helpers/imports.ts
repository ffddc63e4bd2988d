// The imports of a TypeScript source, as the import-cycle and package-boundary tests read them.
const parsers = { ts: new Bun.Transpiler({ loader: "ts" }), tsx: new Bun.Transpiler({ loader: "tsx" }) };

/** The imports of a source text: what Bun's parser finds (it drops type-only ones), then the type-only ones. */
export function importSpecifiers(text: string, kind: "ts" | "tsx" = "ts"): string[] {
  const runtime = parsers[kind].scanImports(text.replace(/^#!.*/, "")).map((i) => i.path);
  const types = [...text.matchAll(/^\s*(?:import|export)\s+type\s[^;]*?\bfrom\s*["']([^"']+)["']/gm)].map((m) => m[1]!);
  return [...runtime, ...types];
}
