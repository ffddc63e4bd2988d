// Short-lived signed tokens for the websocket: a connection ticket (browsers cannot set an
// Authorization header on a websocket, and an access token in a URL would outlive its use in
// logs) and channel tokens that let a member join their client's channel. HMAC-SHA256 with the
// access-token key; the purpose is part of the signed payload, so one kind never passes as another.
export type ChannelTokenKey = CryptoKey;

export const TICKET_SECONDS = 60;
/**
 * A channel token only carries a membership from GetChannelInfo to the join; the join checks the
 * membership again (realtime/hub.ts), and the web app fetches a fresh token whenever it reconnects.
 */
export const CHANNEL_TOKEN_SECONDS = 10 * 60;

const enc = new TextEncoder();
const b64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const unb64 = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

async function sign(key: CryptoKey, payload: object): Promise<string> {
  const body = b64(enc.encode(JSON.stringify(payload)));
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`rt.${body}`)));
  return `${body}.${b64(sig)}`;
}

async function verify<T extends { purpose: string; exp: number }>(key: CryptoKey, token: string, purpose: string): Promise<T | null> {
  const [body, sig] = token.split(".");
  if (!body || !sig || token.split(".").length !== 2) return null;
  try {
    const ok = await crypto.subtle.verify("HMAC", key, unb64(sig) as BufferSource, enc.encode(`rt.${body}`));
    if (!ok) return null;
    const p = JSON.parse(new TextDecoder().decode(unb64(body))) as T;
    if (p.purpose !== purpose || typeof p.exp !== "number" || p.exp * 1000 <= Date.now()) return null;
    return p;
  } catch {
    return null;
  }
}

export interface Ticket {
  purpose: "ws";
  /** Random: the ticket's id, recorded at its one use (websocket_tickets). */
  id: string;
  userId: number;
  /** The login session the ticket was issued in: the socket lives as long as it does. */
  sessionId: string;
  exp: number;
}

export const signTicket = (key: CryptoKey, userId: number, sessionId: string) =>
  sign(key, { purpose: "ws", id: crypto.randomUUID(), userId, sessionId, exp: Math.floor(Date.now() / 1000) + TICKET_SECONDS });
export const verifyTicket = (key: CryptoKey, token: string) => verify<Ticket>(key, token, "ws");

export interface ChannelClaims {
  purpose: "channel";
  channel: string;
  userId: number;
  exp: number;
}

export const signChannelToken = (key: CryptoKey, channel: string, userId: number) => sign(key, { purpose: "channel", channel, userId, exp: Math.floor(Date.now() / 1000) + CHANNEL_TOKEN_SECONDS });
export const verifyChannelToken = (key: CryptoKey, token: string) => verify<ChannelClaims>(key, token, "channel");
