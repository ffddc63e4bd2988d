// The websocket of SPEC 4 and 7: one per tab, opened with a one-minute ticket from
// Users/WebsocketConnection, joined to user-{id} (automatically) and the client channel (with its
// token from Clients/GetChannelInfo), pinging every 30 s, reconnecting with backoff. Pages
// subscribe to events by name; job channels are joined on demand. Every message is parsed with
// its declaration (contracts/events.ts): one that does not parse is dropped with a console warning.
import { isLiveEvent, parseServerMessage, type ClientMessage, type LiveEvent } from "@ideally/contracts/events";
import { api, unwrap } from "../api/client";
import { WEBSOCKET_PING_MS } from "../lib/constants";
import { getToken } from "./session";
import { unreachableFromHere } from "../lib/origin";
import { toast } from "../components/toast";

let warnedUnreachable = false;

/** An event on one of the socket's channels, as contracts/events.ts declares it. */
export type RealtimeEvent = LiveEvent;
type Handler = (ev: RealtimeEvent) => void;

const handlers = new Set<Handler>();
const openHandlers = new Set<() => void>();
const wanted = new Map<string, string | undefined>(); // channel -> join token
let socket: WebSocket | null = null;
let ping: ReturnType<typeof setInterval> | undefined;
let retry = 0;
let connecting = false;
let clientChannelFor: number | null = null;

function send(m: ClientMessage) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(m));
}

async function connect() {
  if (connecting || socket || !getToken()) return;
  connecting = true;
  try {
    const { value } = await unwrap(api.GET("/api/v1/Users/WebsocketConnection"));
    // At another address of the server the page's CSP refuses the socket: say so once, and
    // do not retry a connection that cannot open.
    const unreachable = unreachableFromHere(value);
    if (unreachable) {
      if (!warnedUnreachable) toast.error("Live updates are off", unreachable, true);
      warnedUnreachable = true;
      return;
    }
    const ws = new WebSocket(value);
    socket = ws;
    ws.onopen = () => {
      retry = 0;
      // Client channel tokens live minutes and the server checks membership at the join: a fresh one per connection.
      for (const [channel, token] of wanted) if (!channel.startsWith("client-")) send({ action: "join", channel, token });
      if (clientChannelFor !== null) void fetchAndJoinClientChannel(clientChannelFor);
      ping = setInterval(() => send({ action: "ping" }), WEBSOCKET_PING_MS);
      for (const h of openHandlers) h();
    };
    ws.onmessage = (m) => {
      const parsed = parseServerMessage(String(m.data));
      if (!parsed.ok) {
        console.warn(`Live updates: ignored a message that does not match its declaration (${parsed.error})`);
        return;
      }
      if (!isLiveEvent(parsed.value)) {
        // Control answers (joined, left, pong, error): a join's confirmation is told to who asks.
        const reply = parsed.value;
        if (reply.event === "joined") for (const h of joinedHandlers) h(reply.channel);
        return;
      }
      for (const h of handlers) h(parsed.value);
    };
    ws.onclose = () => {
      clearInterval(ping);
      socket = null;
      if (!getToken()) return;
      retry = Math.min(retry + 1, 6);
      setTimeout(() => void connect(), 500 * 2 ** retry);
    };
  } catch {
    socket = null;
    retry = Math.min(retry + 1, 6);
    if (getToken()) setTimeout(() => void connect(), 500 * 2 ** retry);
  } finally {
    connecting = false;
  }
}

const joinedHandlers = new Set<(channel: string) => void>();

/**
 * Called with the channel each time the server confirms a join: a page that learned of a job before
 * its channel was joined asks then whether the job has already ended (its events are not replayed).
 */
export function onJoined(h: (channel: string) => void): () => void {
  joinedHandlers.add(h);
  void connect();
  return () => joinedHandlers.delete(h);
}

/** Subscribe to every event (filter in the handler); opens the socket on first use. */
export function onRealtime(h: Handler): () => void {
  handlers.add(h);
  void connect();
  return () => handlers.delete(h);
}

/**
 * Called each time the socket opens (the first time and after every reconnection). Events have no
 * replay: what was sent while the page had no socket is lost, so a page waiting for one refetches here.
 */
export function onRealtimeOpen(h: () => void): () => void {
  openHandlers.add(h);
  void connect();
  return () => openHandlers.delete(h);
}

export function joinChannel(channel: string, token?: string) {
  wanted.set(channel, token);
  if (socket?.readyState === WebSocket.OPEN) send({ action: "join", channel, token });
  else void connect();
}

export function leaveChannel(channel: string) {
  wanted.delete(channel);
  send({ action: "leave", channel });
}

/** The current client's channel (ProjectUpdated, IncidenceEstimateUpdated, Progress...). */
export async function joinClientChannel(clientId: number) {
  if (clientChannelFor === clientId) return;
  if (clientChannelFor !== null) leaveChannel(`client-${clientChannelFor}`);
  clientChannelFor = clientId;
  await fetchAndJoinClientChannel(clientId);
}

/** Asks for a client channel token (members only) and joins with it. */
async function fetchAndJoinClientChannel(clientId: number) {
  try {
    const info = await unwrap(api.GET("/api/v1/Clients({key})/GetChannelInfo", { params: { path: { key: String(clientId) } }, headers: { clientId: String(clientId) } }));
    joinChannel(info.name, info.token);
  } catch {
    if (clientChannelFor === clientId) clientChannelFor = null;
  }
}
