// The websocket hub of one API process: signed-in sockets join channels (`user-{id}`, the client
// channel `client-{id}`, `job-{uuid}`), and every event of the PostgreSQL event channel
// (jobs/channel.ts, NOTIFY) is delivered to the sockets joined to its channel. Events raised in
// any API process reach sockets of every process, because each process listens to NOTIFY.
// Transport-neutral: the Bun adapter (realtime/bun.ts) feeds it sockets and messages.
import type { Db } from "../db/client.ts";
import { withTenant } from "../db/tx.ts";
import { BroadcastName, ChannelName, ClientMessage, type ControlReply, type LiveEvent } from "@ideally/contracts/events";
import { decodeEvent, publish, type NotifiedEvent } from "../jobs/channel.ts";
import { verifyChannelToken, type ChannelTokenKey, type Ticket } from "./tokens.ts";

export interface Socket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

export interface Conn {
  socket: Socket;
  userId: number;
  /** The login session the socket's ticket was issued in: when it ends, the socket closes. */
  sessionId: string;
  channels: Set<string>;
  lastSeen: number;
}

/** Close codes: the session ended (logout, disabled, password changed), or a membership was removed. */
export const CLOSE_SESSION_ENDED = 4001;
export const CLOSE_MEMBERSHIP_REMOVED = 4003;

/** Close a socket that has sent nothing (not even the 30 s ping) for this long. */
export const IDLE_MS = 90_000;

export class Hub {
  readonly conns = new Set<Conn>();
  private readonly byChannel = new Map<string, Set<Conn>>();

  constructor(
    private readonly db: Db,
    private readonly key: ChannelTokenKey,
  ) {}

  /**
   * Uses up a connection ticket: true once per ticket (on any API process, through the database),
   * and only while its login session is live and its user enabled.
   */
  async redeem(t: Ticket): Promise<boolean> {
    if (typeof t.id !== "string" || typeof t.sessionId !== "string") return false;
    try {
      const rows = await this.db`
        insert into websocket_tickets (id, user_id, session_id, expires_at)
        select ${t.id}::uuid, ${t.userId}, ${t.sessionId}::uuid, to_timestamp(${t.exp})
        where exists (select 1 from auth_sessions s join users u on u.id = s.user_id
                      where s.id = ${t.sessionId}::uuid and s.user_id = ${t.userId}
                        and s.revoked_at is null and s.expires_at > now() and u.disabled_at is null)
        on conflict (id) do nothing
        returning 1`;
      return rows.length === 1;
    } catch {
      return false; // a malformed id, or the database away: no socket
    }
  }

  open(socket: Socket, userId: number, sessionId: string): Conn {
    const conn: Conn = { socket, userId, sessionId, channels: new Set(), lastSeen: Date.now() };
    this.conns.add(conn);
    this.join(conn, `user-${userId}`); // one's own channel, always
    return conn;
  }

  close(conn: Conn): void {
    for (const ch of conn.channels) this.byChannel.get(ch)?.delete(conn);
    this.conns.delete(conn);
  }

  private join(conn: Conn, channel: string): void {
    conn.channels.add(channel);
    let set = this.byChannel.get(channel);
    if (!set) {
      set = new Set();
      this.byChannel.set(channel, set);
    }
    set.add(conn);
  }

  private leave(conn: Conn, channel: string): void {
    conn.channels.delete(channel);
    this.byChannel.get(channel)?.delete(conn);
  }

  private reply(conn: Conn, m: ControlReply): void {
    conn.socket.send(JSON.stringify(m));
  }

  /**
   * Who may join a channel: one's own user channel; a client channel with its token and, as of now,
   * a membership reaching the client in a live session (app_enter decides, as for any request);
   * a job by id.
   */
  private async mayJoin(conn: Conn, channel: string, token: string | undefined): Promise<boolean> {
    if (/^user-\d+$/.test(channel)) return channel === `user-${conn.userId}`;
    if (/^client-\d+$/.test(channel)) {
      if (!token) return false;
      const claims = await verifyChannelToken(this.key, token);
      if (claims === null || claims.channel !== channel || claims.userId !== conn.userId) return false;
      const clientId = Number(channel.slice("client-".length));
      return withTenant(this.db, { userId: conn.userId, clientId, descendants: false, sessionId: conn.sessionId }, async () => true).catch(() => false);
    }
    // Job ids are random UUIDs handed to whoever started the job; its events reach only that user (deliver).
    return /^job-[0-9a-f-]{36}$/.test(channel);
  }

  async message(conn: Conn, text: string): Promise<void> {
    conn.lastSeen = Date.now();
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return this.reply(conn, { event: "error", message: "messages are JSON" });
    }
    const parsed = ClientMessage.safeParse(raw);
    if (!parsed.success) return this.reply(conn, { event: "error", message: refusal(raw) });
    const m = parsed.data;
    switch (m.action) {
      case "ping":
        return this.reply(conn, { event: "pong" });
      case "join":
        if (!(await this.mayJoin(conn, m.channel, m.token))) return this.reply(conn, { event: "error", message: `cannot join ${m.channel.slice(0, 60)}` });
        this.join(conn, m.channel);
        return this.reply(conn, { event: "joined", channel: m.channel });
      case "leave":
        this.leave(conn, m.channel);
        return this.reply(conn, { event: "left", channel: m.channel });
      case "broadcast": {
        const channel = ChannelName.safeParse(m.channel);
        const event = BroadcastName.safeParse(m.event);
        if (!conn.channels.has(m.channel) || !channel.success || !event.success) {
          return this.reply(conn, { event: "error", message: "broadcast needs a joined channel and an event named client:<name>" });
        }
        // Through NOTIFY, so peers on every API process receive it (this one included).
        await publish(this.db, { channel: channel.data, event: event.data, data: m.data ?? null, userId: conn.userId });
        return;
      }
    }
  }

  /** An event from the event channel: to every socket joined to its channel in this process. */
  deliver(ev: NotifiedEvent): void {
    const set = this.byChannel.get(ev.channel);
    if (!set?.size) return;
    if (ev.event === "SessionEnded" || ev.event === "MembershipRemoved") {
      this.end(set, ev.event === "SessionEnded" ? ev.data.sessionId : null);
      return;
    }
    const { userId: _u, clientId: _c, ...live } = ev;
    const message: LiveEvent = live;
    const text = JSON.stringify(message);
    // A job's events (its file name, size, result) reach only the user who started it, whoever
    // else learned the job's id and joined its channel.
    const ownerOnly = ev.channel.startsWith("job-");
    for (const conn of set) if (!ownerOnly || conn.userId === ev.userId) conn.socket.send(text);
  }

  /**
   * A session ended (sessionId): its sockets close. A membership was removed (null): every socket
   * of the user closes (the web app reconnects and joins only what it may join now).
   */
  private end(set: Set<Conn>, sessionId: string | null): void {
    for (const conn of [...set]) {
      if (sessionId !== null && sessionId !== conn.sessionId) continue;
      conn.socket.close(sessionId !== null ? CLOSE_SESSION_ENDED : CLOSE_MEMBERSHIP_REMOVED, sessionId !== null ? "session ended" : "membership removed");
      this.close(conn);
    }
  }

  /** The raw NOTIFY payload form of deliver(), for the subscription. */
  deliverPayload(payload: string): void {
    const ev = decodeEvent(payload);
    if (ev) this.deliver(ev);
  }

  /** Closes sockets that stopped pinging, and forgets used tickets that have expired. */
  sweep(now = Date.now()): void {
    void this.db`delete from websocket_tickets where expires_at < now() - interval '1 minute'`.catch(() => undefined);
    for (const conn of this.conns) {
      if (now - conn.lastSeen > IDLE_MS) {
        conn.socket.close(4000, "idle");
        this.close(conn);
      }
    }
  }
}

/** Why a client's message is refused: an unknown action, or the field of a known one that is missing or wrong. */
function refusal(raw: unknown): string {
  const action = typeof raw === "object" && raw !== null && "action" in raw ? raw.action : undefined;
  if (action === "join" && typeof raw === "object" && raw !== null && "channel" in raw) return `cannot join ${String(raw.channel).slice(0, 60)}`;
  if (!ClientMessage.options.some((o) => o.shape.action.value === action)) return "unknown action";
  if (action === "broadcast") return "broadcast needs a joined channel and an event named client:<name>";
  return `${action} needs a channel name`;
}
