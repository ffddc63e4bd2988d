// Reading a line from the terminal, with or without echo (for passwords).
import { usageError } from "./errors.ts";

export async function readStdin(): Promise<string> {
  return (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "");
}

/** Asks on stderr and reads one line from a TTY; `hidden` turns echo off. */
export async function ask(question: string, hidden = false): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw usageError(`${question.replace(/[:\s]+$/, "")} is needed and stdin is not a terminal (see --help)`);
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let line = "";
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
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
