// PostgreSQL's cancel request (protocol: "Canceling Requests in Progress"), sent for a backend the
// request holds. postgres.js sends one for a query only while it marks that query active; a
// request's statements are several queries, so db/tx.ts keeps the backend's key instead (the
// `state` of a result, which postgres.js documents) and asks for the cancel here, on a socket of
// its own, as postgres.js itself does (to the first host, without TLS: PostgreSQL reads a cancel
// request before any TLS negotiation or pg_hba check).
import { connect as netConnect } from "node:net";
import type { Db } from "./client.ts";

/** A backend's cancel key (postgres.js's `State`: the BackendKeyData the server sent at startup). */
export interface CancelKey {
  pid: number;
  secret: number;
}

/** How long a cancel request's socket may stay open; the server closes it as soon as it has read the request. */
const CANCEL_SOCKET_MS = 10_000;

/**
 * Sends a cancel request for the backend with `key`. Resolves once the socket has closed: the
 * server signals the backend before closing it, so a statement the backend runs after that is
 * not cancelled by it. Never rejects: a request that could not be sent cancelled nothing (the
 * statement timeout still bounds the statement).
 */
export function cancelBackend(db: Db, key: CancelKey): Promise<void> {
  return new Promise((resolve) => {
    try {
      const o = db.options;
      const message = Buffer.alloc(16);
      message.writeUInt32BE(16, 0);
      message.writeUInt32BE(80877102, 4);
      // Both as postgres.js reads them from BackendKeyData: unsigned 32-bit.
      message.writeUInt32BE(key.pid, 8);
      message.writeUInt32BE(key.secret, 12);
      const socket = o.path ? netConnect(o.path) : netConnect(o.port[0] ?? 5432, o.host[0] ?? "localhost");
      socket.setTimeout(CANCEL_SOCKET_MS, () => socket.destroy());
      socket.once("connect", () => socket.end(message));
      socket.on("error", () => {});
      socket.once("close", () => resolve());
    } catch {
      resolve();
    }
  });
}
