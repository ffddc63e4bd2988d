// bun run audit: the dependency audit of CI. Asks the npm registry's advisory service (through
// `bun audit --json`) about every installed package and fails on any high or critical advisory.
// Exit codes: 0 clean (or only low/moderate), 1 high-severity advisories, 2 the advisory service
// could not be asked (scripts/test-all.ts counts that as a failure when AUDIT_REQUIRED=1).

export interface Advisory {
  id?: number | string;
  title?: string;
  severity?: string;
  url?: string;
  vulnerable_versions?: string;
}

/** The high and critical advisories of `bun audit --json`'s report ({ package: Advisory[] }). */
export function highSeverity(report: unknown): { pkg: string; advisory: Advisory }[] {
  const out: { pkg: string; advisory: Advisory }[] = [];
  if (!report || typeof report !== "object") return out;
  for (const [pkg, list] of Object.entries(report as Record<string, unknown>)) {
    if (!Array.isArray(list)) continue;
    for (const a of list as Advisory[]) {
      if (a && (a.severity === "high" || a.severity === "critical")) out.push({ pkg, advisory: a });
    }
  }
  return out;
}

if (import.meta.main) {
  const p = Bun.spawnSync(["bun", "audit", "--json"], { stdout: "pipe", stderr: "pipe" });
  const stdout = p.stdout.toString().trim();
  let report: unknown;
  try {
    report = stdout ? JSON.parse(stdout) : undefined;
  } catch {
    report = undefined;
  }
  if (report === undefined) {
    console.error(`dependency audit: the advisory service could not be asked: ${p.stderr.toString().trim().split("\n")[0] ?? "no answer"}`);
    process.exit(2);
  }
  const high = highSeverity(report);
  for (const { pkg, advisory } of high) {
    console.error(`${advisory.severity}: ${pkg} ${advisory.vulnerable_versions ?? ""} ${advisory.title ?? ""} ${advisory.url ?? ""}`.trim());
  }
  console.log(high.length ? `dependency audit: ${high.length} high-severity advisories` : "dependency audit: no high-severity advisories");
  process.exit(high.length ? 1 : 0);
}
