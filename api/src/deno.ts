// Deno adapter: the same Hono app under Deno.serve against DATABASE_URL (the edge-first check).
//   deno run -A api/src/deno.ts        (env: DATABASE_URL, PORT, AUTH_SECRET)
// It serves the data API with the same bearer tokens; sign-in (/auth) stays with the Bun server,
// whose password hashing is Bun's.
import { API_POOL_SIZE } from "./config.ts";
import { newApp } from "./app.ts";
import { connect } from "./db/client.ts";
import { registry } from "./entities/index.ts";
import { loadSigningKey } from "./auth/keys.ts";
import { bearerAuthenticate } from "./auth/authenticate.ts";

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(opts: { port: number; hostname?: string; onListen?: (a: { port: number }) => void }, handler: (req: Request) => Response | Promise<Response>): unknown;
};

const url = Deno.env.get("DATABASE_URL");
if (!url) throw new Error("DATABASE_URL is required under Deno (the embedded database is a Bun-side adapter)");
// The pool the share is half of (config.ts), as under Bun: with 5 connections one user's share took them all.
const db = connect(url, { max: API_POOL_SIZE });
const key = await loadSigningKey(db, Deno.env.get("AUTH_SECRET") || undefined);
const app = newApp({ db, registry, authenticate: bearerAuthenticate(key) });
Deno.serve(
  {
    port: Number(Deno.env.get("PORT") ?? 3000),
    hostname: "127.0.0.1",
    onListen: ({ port }) => console.log(`Ideally API (Deno) on http://127.0.0.1:${port}`),
  },
  app.fetch,
);
