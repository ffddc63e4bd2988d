// A pager on a terminal for the listing and results commands (issue 38, record 0133), as git and gh
// have one. The pager is IDEALLY_PAGER, else PAGER, else `less`; empty or `cat` means none, and so
// do `--no-pager` and a stdout that is not a terminal. It runs through `sh -c` (so PAGER may carry
// arguments), started at the command's first write to stdout: a command that writes nothing (a
// usage error) opens none. `less` gets LESS=FRX when LESS is unset, as git sets it: quit when the
// text fits one screen, pass colours through, leave the text on the screen. While the pager runs,
// stderr's lines (the paging hint, warnings) are held and written when it ends, below the text
// it left, instead of across it.

/** The pager command to run, or null for none. */
export function pagerCommand(env: Record<string, string | undefined>, noPager: boolean, terminal: boolean): string | null {
  if (noPager || !terminal) return null;
  const cmd = (env.IDEALLY_PAGER ?? env.PAGER ?? "less").trim();
  if (cmd === "" || cmd === "cat") return null;
  // The default only when it is installed: a missing `less` is no reason to lose the output.
  if (env.IDEALLY_PAGER === undefined && env.PAGER === undefined && !Bun.which("less")) return null;
  return cmd;
}

type Write = typeof process.stdout.write;
type Callback = (err?: Error | null) => void;

interface Running {
  proc: ReturnType<typeof spawnPager>;
  /** The pager has ended (quit early, or read to the end). */
  ended: boolean;
}

let active: { cmd: string; running: Running | null; stdout: Write; stderr: Write; held: (string | Uint8Array)[] } | null = null;

function spawnPager(cmd: string) {
  const env: Record<string, string | undefined> = { ...process.env };
  env.LESS ??= "FRX";
  env.LV ??= "-c";
  return Bun.spawn(["sh", "-c", cmd], { stdin: "pipe", stdout: "inherit", stderr: "inherit", env });
}

/** The callback of a write(chunk, [encoding], [cb]) call, wherever it was given. */
const callbackOf = (a: BufferEncoding | Callback | undefined, b: Callback | undefined): Callback | undefined => (typeof a === "function" ? a : b);

/**
 * From now on stdout goes to the pager `cmd` (started at the first write). `endPager` closes it and
 * waits for it; until then Ctrl-C belongs to the pager (less handles it), not to this process.
 */
export function startPager(cmd: string): void {
  if (active) return;
  const state = { cmd, running: null as Running | null, stdout: process.stdout.write, stderr: process.stderr.write, held: [] as (string | Uint8Array)[] };
  active = state;
  const toPager = (chunk: string | Uint8Array, a?: BufferEncoding | Callback, b?: Callback): boolean => {
    if (!state.running) {
      const proc = spawnPager(state.cmd);
      const running: Running = { proc, ended: false };
      state.running = running;
      void proc.exited.then(() => {
        running.ended = true;
      });
      process.on("SIGINT", ignore);
    }
    const run = state.running;
    if (!run.ended) {
      try {
        run.proc.stdin.write(chunk);
      } catch {
        // The pager quit before reading everything (q in less): the rest is not wanted.
        run.ended = true;
      }
    }
    callbackOf(a, b)?.();
    return true;
  };
  const holdErr = (chunk: string | Uint8Array, a?: BufferEncoding | Callback, b?: Callback): boolean => {
    if (state.running && !state.running.ended) state.held.push(chunk);
    else state.stderr.call(process.stderr, chunk);
    callbackOf(a, b)?.();
    return true;
  };
  process.stdout.write = toPager;
  process.stderr.write = holdErr;
}

const ignore = () => {};

/** Ends the pager's input, waits for the person to leave it, then writes what stderr held. */
export async function endPager(): Promise<void> {
  const state = active;
  if (!state) return;
  active = null;
  if (state.running) {
    try {
      await state.running.proc.stdin.end();
    } catch {
      /* it had quit already */
    }
    await state.running.proc.exited;
    process.off("SIGINT", ignore);
  }
  process.stdout.write = state.stdout;
  process.stderr.write = state.stderr;
  for (const chunk of state.held) process.stderr.write(chunk);
}
