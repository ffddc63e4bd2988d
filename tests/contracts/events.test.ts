// The websocket's events are declared once, in contracts/events.ts (issue 34): the API publishes
// through jobs/channel.ts's typed publish only (it checks each event against its declaration), the
// database's NOTIFY triggers send only declared names, every declared name has a publisher, and the
// web app and the CLI read messages only through the contract's parser, which refuses what does
// not match. Expected values below come from the declarations' own wording in SPEC 4 and
// docs/realtime-events.md, not from the parser's output.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { DECLARED_EVENTS, SOCKET_CONTROL_EVENTS, USER_NOTIFICATION_EVENTS, parseLiveEvent, parseServerMessage } from "@ideally/contracts/events";

const ROOT = resolve(import.meta.dir, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}
const read = (f: string) => readFileSync(f, "utf8");
const rel = (f: string) => relative(ROOT, f);
const JOB = `job-${"0123abcd-0000-4000-8000-00000000000a"}`;
const notification = { notificationId: 5, title: "Results are ready", body: null, url: "/1003/results/7", projectId: 7 };

/** The parser's verdict, as a plain value to compare with the expected one. */
const parse = (m: object | string): unknown => parseServerMessage(typeof m === "string" ? m : JSON.stringify(m));

describe("the parser", () => {
  test("a declared event of each channel parses, with only its declared fields", () => {
    const progress = { channel: JOB, event: "Progress", data: { jobId: JOB.slice(4), name: "exports.powerpoint", pct: 40, message: "slides" } };
    expect(parse(progress)).toEqual({ ok: true, value: progress });
    const run = { channel: "client-1003", event: "Progress", data: { jobId: "survey-run-4", name: "fielding", pct: 100 } };
    expect(parse(run)).toEqual({ ok: true, value: run });
    const updated = { channel: "client-1003", event: "ProjectUpdated", data: { projectId: 7, statusCode: 400, action: "Launch", notDeclared: true } };
    const { notDeclared: _, ...declared } = updated.data;
    expect(parse(updated), "an undeclared field is left out").toEqual({ ok: true, value: { ...updated, data: declared } });
    // A notification keeps its type's own details (they are its stored data too).
    const ready = { channel: "user-9004", event: "ProjectReady", data: { ...notification, statusCode: 800, watching: true } };
    expect(parse(ready)).toEqual({ ok: true, value: ready });
    const truncated = { channel: "user-9004", event: "AiMessageCompleted", data: null, truncated: true };
    expect(parse(truncated)).toEqual({ ok: true, value: truncated });
    const broadcast = { channel: "client-1003", event: "client:typing", data: { from: "B" } };
    expect(parse(broadcast)).toEqual({ ok: true, value: broadcast });
    expect(parse('{"event":"joined","channel":"client-1003"}')).toEqual({ ok: true, value: { event: "joined", channel: "client-1003" } });
    expect(parse('{"event":"pong"}')).toEqual({ ok: true, value: { event: "pong" } });
  });

  test("a malformed message is refused, saying what and where", () => {
    const refused = (m: unknown) => {
      const r = parseServerMessage(typeof m === "string" ? m : JSON.stringify(m));
      return r.ok ? "parsed" : r.error;
    };
    expect(refused("{not json")).toBe("not JSON");
    expect(refused({ channel: "user-1" })).toBe("not an event: it has no event name");
    expect(refused({ event: "ProjectUpdated", data: { projectId: 1 } })).toBe("ProjectUpdated on no channel: an event names its channel");
    expect(refused({ channel: "room-1", event: "ProjectUpdated", data: { projectId: 1 } })).toBe("ProjectUpdated on room-1: unknown channel");
    expect(refused({ channel: "client-1", event: "Nope", data: {} })).toStartWith("Nope on client-1: event: Invalid discriminator value");
    // An event on a channel it does not go to (ProjectUpdated is the client channel's).
    expect(refused({ channel: "user-1", event: "ProjectUpdated", data: { projectId: 1 } })).toStartWith("ProjectUpdated on user-1: event: Invalid discriminator value");
    expect(refused({ channel: "client-1", event: "ProjectUpdated", data: { projectId: "7" } })).toBe("ProjectUpdated on client-1: data.projectId: Invalid input: expected number, received string");
    expect(refused({ channel: "client-1", event: "ProjectUpdated", data: null })).toBe("ProjectUpdated on client-1: data: Invalid input: expected object, received null");
    expect(refused({ channel: "user-1", event: "AiMessageDelta", data: { replyToMessageId: 3, seq: 0 } })).toBe(
      "AiMessageDelta on user-1: data.delta: Invalid input: expected string, received undefined",
    );
    expect(refused({ channel: "client-1x", event: "ProjectUpdated", data: { projectId: 1 } })).toStartWith("ProjectUpdated on client-1x: channel: ");
    expect(refused({ channel: "user-1", event: "client:has space", data: 1 })).toStartWith("client:has space on user-1: event: ");
    expect(refused({ event: "error" })).toBe("error: message: Invalid input: expected string, received undefined");
    // Server-only events never reach a socket as declared events.
    expect(refused({ channel: "user-1", event: "SessionEnded", data: { sessionId: "s" } })).toStartWith("SessionEnded on user-1: event: Invalid discriminator value");
  });

  test("thresholds at their edges: Progress's pct is a whole number from 0 to 100; an incidence estimate 0 to 1", () => {
    const pct = (p: number) => parseLiveEvent({ channel: JOB, event: "Progress", data: { jobId: "j", name: "n", pct: p } }).ok;
    expect([pct(0), pct(100), pct(-1), pct(101), pct(50.5)]).toEqual([true, true, false, false, false]);
    const ir = (x: number) => parseLiveEvent({ channel: "client-1", event: "IncidenceEstimateUpdated", data: { projectId: 1, incidenceEstimate: x, previous: null } }).ok;
    expect([ir(0), ir(1), ir(-0.0001), ir(1.0001)]).toEqual([true, true, false, false]);
  });
});

describe("one publish path", () => {
  const api = sources(join(ROOT, "api/src"));

  test("only api/src/jobs/channel.ts sends a NOTIFY or names the event channel", () => {
    // Comments left out (they may say "pg_notify"); postgres.js's sql.notify(...) counts.
    const code = (f: string) => read(f).replace(/^\s*\/\/.*$/gm, "");
    const notifying = api.filter((f) => /pg_notify|\b(sql|tx|db)\.notify\(|EVENTS_CHANNEL|ideally_events/.test(code(f))).map(rel);
    expect(notifying).toEqual(["api/src/jobs/channel.ts"]);
  });

  test("publish and publishMany are channel.ts's, which check each event against its declaration", () => {
    const text = read(join(ROOT, "api/src/jobs/channel.ts"));
    expect(text).toContain("export async function publish(sql: Db | Tx, ev: ChannelEvent)");
    expect(text).toContain("export async function publishMany(sql: Db | Tx, evs: ChannelEvent[])");
    // Both go through encodeEvent, which parses with the contract.
    expect(text.match(/encodeEvent/g)?.length).toBeGreaterThanOrEqual(3);
    expect(text).toContain("const parsed = parseLiveEvent(ev);");
    const importers = api.filter((f) => /\bpublish(Many)?\(/.test(read(f)) && !f.endsWith("jobs/channel.ts") && !f.includes("/prompts/"));
    expect(importers.length).toBeGreaterThan(8);
    const channel = join(ROOT, "api/src/jobs/channel.ts");
    const fromChannel = (f: string) => [...read(f).matchAll(/import \{([^}]*)\} from "([^"]+)"/g)].some((m) => /\bpublish\b/.test(m[1]!) && resolve(join(f, ".."), m[2]!) === channel);
    expect(importers.filter((f) => !fromChannel(f)).map(rel), "each publisher imports publish from jobs/channel.ts").toEqual([]);
  });

  test("the database's NOTIFY triggers send only declared events, in the envelope's shape", () => {
    const dir = join(ROOT, "migrations");
    const names = new Set<string>();
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".sql"))) {
      const text = read(join(dir, f));
      for (const m of text.matchAll(/pg_notify\('ideally_events', json_build_object\(([\s\S]*?)\)::text\)/g)) {
        expect(m[1], `${f}: the envelope names channel, event and data`).toMatch(/'channel',[\s\S]*'event',[\s\S]*'data',/);
        const event = /'event', '([A-Za-z]+)'/.exec(m[1]!)?.[1];
        if (event) names.add(event);
        else for (const w of text.matchAll(/then '([A-Za-z]+)'/g)) names.add(w[1]!); // a CASE picks the name
      }
    }
    const declared = new Set<string>([...DECLARED_EVENTS, ...SOCKET_CONTROL_EVENTS]);
    expect([...names].filter((n) => !declared.has(n))).toEqual([]);
    expect([...names].sort()).toEqual([
      "MembershipRemoved",
      "ProjectReady",
      "ProjectSentOutForSurvey",
      "ProjectUpdated",
      "SessionEnded",
      "SurveyApprovalDeclined",
      "SurveyApproved",
      "SurveySubmittedForApproval",
    ]);
  });

  test("every declared event has a publisher (a declaration nothing sends would rot)", () => {
    const publishers = [...api.filter((f) => !f.endsWith("jobs/channel.ts")).map(read), ...readdirSync(join(ROOT, "migrations")).map((f) => read(join(ROOT, "migrations", f)))].join("\n");
    // Job events are the workers'; notifications are raised by name (raise({ type }), the notification_types rows).
    const unsent = [...DECLARED_EVENTS, ...SOCKET_CONTROL_EVENTS].filter((n) => !publishers.includes(`"${n}"`) && !publishers.includes(`'${n}'`));
    expect(unsent).toEqual([]);
    expect(USER_NOTIFICATION_EVENTS.length).toBe(12);
  });
});

describe("the consumers read messages through the contract", () => {
  test("every websocket message handler in web/src and cli/src parses with parseServerMessage, and no message is cast", () => {
    const files = [...sources(join(ROOT, "web/src")), ...sources(join(ROOT, "cli/src"))];
    const handlers = files.filter((f) => /\.onmessage\s*=/.test(read(f)));
    expect(handlers.map(rel).sort()).toEqual(["cli/src/commands/projects/watcher.ts", "cli/src/jobs.ts", "web/src/state/realtime.ts"]);
    for (const f of handlers) {
      const text = read(f);
      expect(text, rel(f)).toContain("parseServerMessage(");
      expect(text, `${rel(f)} casts no parsed message`).not.toMatch(/JSON\.parse\([^)]*\)\s+as\b/);
    }
    // No consumer casts an event's data to a shape of its own.
    const casts = files.filter((f) => /\.data as \{|ev\.data as|e\.data as|\(e\.data \?\? \{\}\) as/.test(read(f))).map(rel);
    expect(casts).toEqual([]);
  });
});
