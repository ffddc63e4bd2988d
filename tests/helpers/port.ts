// A port for a server a test or benchmark starts. A random pick in 21000-41000 overlapped the
// kernel's ephemeral range (32768-60999 here), where outgoing connections (the suite's many
// PostgreSQL ones) hold ports too, and nothing checked the pick was free: a server that could not
// listen failed its file's beforeAll (CI, 2026-12-02: "(unnamed)" after 1.4 s). Picks stay below
// the ephemeral range and are taken only if a listener can bind them now.
export const PORT_LOW = 20000;
export const PORT_HIGH = 32768;

export const randomPort = (): number => PORT_LOW + Math.floor(Math.random() * (PORT_HIGH - PORT_LOW));

/** Whether a listener can bind 127.0.0.1:port now. */
export function portFree(port: number): boolean {
  try {
    Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}

/** Ports of services a machine may run in that range (RabbitMQ's 25672). */
const SERVICES = [25672];

/**
 * A port nothing listens on now, from `pick` (random below the ephemeral range by default), none
 * of `taken` (ports already handed out for servers not yet started).
 */
export function freePort(pick: () => number = randomPort, taken: number[] = []): number {
  for (let i = 0; i < 100; i++) {
    const p = pick();
    if (!taken.includes(p) && !SERVICES.includes(p) && portFree(p)) return p;
  }
  throw new Error("no free port found in 100 picks");
}

/** The words a server prints when its port was taken between the pick and its listen. */
export const PORT_IN_USE = /Is port \d+ in use|EADDRINUSE|address already in use/i;
