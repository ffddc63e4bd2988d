// The `ideally` CLI as a subprocess, with its own config folder (XDG_CONFIG_HOME) and API URL, so
// tests never touch the user's session and can run side by side.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const CLI_MAIN = resolve(import.meta.dir, "../../cli/src/main.ts");

export interface CliRun {
  stdout: string;
  stderr: string;
  code: number;
}

export interface CliHarness {
  home: string;
  configFile: string;
  run(args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<CliRun>;
  /** Runs and parses stdout as JSON, failing with stderr when the exit code is not 0. */
  json<T = unknown>(args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<T>;
  /**
   * Runs on a terminal: stdout and stdin are a pseudo-terminal of `columns` x 24 (util-linux
   * `script`), stderr a file. `screen` is what reached the terminal, its CR LF read as LF.
   */
  tty(args: string[], opts?: { env?: Record<string, string | undefined>; columns?: number }): Promise<{ screen: string; stderr: string; code: number }>;
  config(): { session?: Record<string, unknown> } & Record<string, unknown>;
  writeConfig(c: unknown): void;
  dispose(): void;
}

/** A word for sh, single-quoted. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

export function cliHarness(api: string): CliHarness {
  const home = mkdtempSync(join(tmpdir(), "ideally-cli-home-"));
  const configFile = join(home, "ideally", "config.json");
  const run = async (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliRun> => {
    const proc = Bun.spawn([process.execPath, "run", CLI_MAIN, ...args], {
      stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, XDG_CONFIG_HOME: home, IDEALLY_API_URL: api, NO_COLOR: "1", FORCE_COLOR: "", IDEALLY_PASSWORD: "", ...opts.env },
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  };
  let ttyRuns = 0;
  const tty = async (args: string[], opts: { env?: Record<string, string | undefined>; columns?: number } = {}) => {
    const errFile = join(home, `tty-${++ttyRuns}.stderr`);
    const line = `stty cols ${opts.columns ?? 80} rows 24; exec ${[process.execPath, "run", CLI_MAIN, ...args].map(shellQuote).join(" ")} 2>${shellQuote(errFile)}`;
    const proc = Bun.spawn(["script", "-qec", line, "/dev/null"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      // A variable given as undefined is left out.
      env: Object.fromEntries(
        Object.entries({ ...process.env, XDG_CONFIG_HOME: home, IDEALLY_API_URL: api, NO_COLOR: "1", FORCE_COLOR: "", IDEALLY_PASSWORD: "", ...opts.env }).filter(
          (e): e is [string, string] => e[1] !== undefined,
        ),
      ),
    });
    const [screen, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    const stderr = readFileSync(errFile, "utf8");
    rmSync(errFile, { force: true });
    return { screen: screen.replace(/\r\n/g, "\n"), stderr, code };
  };
  return {
    home,
    configFile,
    run,
    tty,
    async json<T>(args: string[], opts = {}) {
      const r = await run([...args, "--json"], opts);
      if (r.code !== 0) throw new Error(`ideally ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    },
    config: () => JSON.parse(readFileSync(configFile, "utf8")),
    writeConfig: (c) => writeFileSync(configFile, JSON.stringify(c)),
    dispose: () => rmSync(home, { recursive: true, force: true }),
  };
}

/**
 * The command tree, by walking each `--help`'s Commands section (leaf: no subcommands), with the
 * help text the walk read (so a caller need not run each `--help` again). The top level's own help
 * is not in the list.
 */
export async function helpTree(run: (args: string[]) => Promise<CliRun>, path: string[] = []): Promise<{ path: string[]; leaf: boolean; help: string }[]> {
  const help = (await run([...path, "--help"])).stdout;
  const section = /\nCommands:\n([\s\S]*?)(\n\n|$)/.exec(help)?.[1] ?? "";
  const subs = section
    .split("\n")
    .map((l) => /^ {2}([^\s|]+)/.exec(l)?.[1])
    .filter((x): x is string => Boolean(x) && x !== "help");
  if (!subs.length) return [{ path, leaf: true, help }];
  const out = path.length ? [{ path, leaf: false, help }] : [];
  for (const s of subs) out.push(...(await helpTree(run, [...path, s])));
  return out;
}

/** The examples in a help text: `$ ideally ...` lines, backslash continuations joined. */
export function helpExamples(help: string): string[] {
  const out: string[] = [];
  const lines = help.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s+\$ (ideally .*)$/.exec(lines[i]!);
    if (!m) continue;
    let cmd = m[1]!;
    while (cmd.endsWith("\\") && i + 1 < lines.length) cmd = `${cmd.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    out.push(cmd);
  }
  return out;
}
