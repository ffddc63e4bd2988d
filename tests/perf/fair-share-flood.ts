// The flood of bench:fair (fair-share.bench.ts), in a process of its own so that reading its large
// answers never holds the measuring process's event loop: FLOOD_LOOPS loops per token, each calling
// FLOOD_PATH at once again as soon as it is answered (200 or 503 alike, as the attacker
// did). It stops when its stdin closes: the calls in flight are aborted (the server cancels their
// statements), and it prints one line `FLOOD {...}` with the answers it got by status and the bytes.
export {};

const base = process.env.FLOOD_BASE!;
const path = process.env.FLOOD_PATH!;
const client = process.env.FLOOD_CLIENT!;
const tokens = process.env.FLOOD_TOKENS!.split(",");
const loops = Number(process.env.FLOOD_LOOPS ?? 8);

const stop = new AbortController();
const statuses: Record<string, number> = {};
let bytes = 0;

async function loop(token: string): Promise<void> {
  while (!stop.signal.aborted) {
    try {
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}`, clientId: client }, signal: stop.signal });
      bytes += (await res.arrayBuffer()).byteLength;
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    } catch {
      if (!stop.signal.aborted) statuses.error = (statuses.error ?? 0) + 1;
    }
  }
}

const running = Promise.all(tokens.flatMap((t) => Array.from({ length: loops }, () => loop(t))));
console.log("FLOOD_STARTED");
for await (const _ of Bun.stdin.stream()) {
  // nothing is sent; the stream ends when the parent closes it
}
stop.abort();
await running;
console.log(`FLOOD ${JSON.stringify({ statuses, bytes })}`);
