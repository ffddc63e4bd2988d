// Reading a line from the terminal, with or without echo (for passwords), and the confirmation
// commands that charge, delete or move credits ask for (--yes answers it; without a terminal and
// without --yes the command is refused, so a script never does it by accident).
import { usageError } from "./errors.ts";

export async function readStdin(): Promise<string> {
  return (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "");
}

/** Asks on stderr and reads one line from a TTY; `hidden` turns echo off. */
export async function ask(question: string, hidden = false): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw usageError(`${question.replace(/[:\s]+$/, "")} is needed and stdin is not a terminal (see --help)`);
  return new Promise((resolve, reject) => {
    let line = "";
    // Raw (and so without echo) before the question shows: a key typed as soon as it is asked is
    // read here, where in the moment before the terminal went raw a Ctrl-D reached us as a NUL and
    // a password typed ahead was echoed.
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    process.stderr.write(question);
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      err ? reject(err) : resolve(line);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(usageError("cancelled"));
        // Ctrl-D: end of input, as in a shell: ends an empty prompt, else takes the line so far.
        if (ch === "\u0004") return line === "" ? done(usageError("cancelled (end of input)")) : done();
        if (ch === "\u007f" || ch === "\b") {
          if (line.length > 0) {
            line = line.slice(0, -1);
            if (!hidden) process.stderr.write("\b \b");
          }
          continue;
        }
        line += ch;
        if (!hidden) process.stderr.write(ch);
      }
    };
    stdin.on("data", onData);
  });
}

/**
 * Asks "QUESTION [y/N]" on a terminal; --yes skips it. Not on a terminal and without --yes the
 * command is refused (exit 1) naming --yes; an answer other than y/yes cancels (exit 1).
 */
export async function confirm(o: { yes?: boolean }, question: string, what: string): Promise<void> {
  if (o.yes) return;
  unattended(o, what);
  const answer = (await ask(`${question} [y/N] `)).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") throw usageError(`${what}: cancelled, nothing changed`);
}

/** Refuses (exit 1) before anything is read or shown when no one could answer the question. */
export function unattended(o: { yes?: boolean }, what: string): void {
  if (!o.yes && !process.stdin.isTTY) throw usageError(`${what}: add --yes to confirm (stdin is not a terminal, so there is no one to ask)`);
}
