// The websocket's messages, declared once (issue 34): each event's data as a zod schema, a
// discriminated union per channel (job-{uuid}, client-{id}, user-{id}), the control answers and the
// client's actions, with their TypeScript types inferred. The API publishes only what these
// declare (api/src/jobs/channel.ts checks each event against them before NOTIFY); the web app
// (web/src/state/realtime.ts) and the CLI (cli/src/jobs.ts, cli/src/commands/projects/watcher.ts)
// parse every message they receive with parseServerMessage and drop one that does not parse.
// The events and their data are listed in docs/realtime-events.md.
//
// Objects are not strict: a field added later reaches an older client, which ignores it. Parsing
// keeps only the declared fields, so a field the API sends has to be declared here to arrive.
import { z } from "zod";

// ---- channels ----

const numbered = <P extends string>(prefix: P) => z.templateLiteral([prefix, z.int()]).refine((s) => /^[a-z]+-\d+$/.test(s), { message: `expected ${prefix}{id}` });
/** A job's channel, `job-{uuid}` (its events reach only the user who started it). */
export const JobChannel = z.templateLiteral(["job-", z.string().regex(/^[0-9a-f-]{36}$/)]);
/** A client's (team's) channel, `client-{id}`, joined with the token of Clients({id})/GetChannelInfo. */
export const ClientChannel = numbered("client-");
/** A user's own channel, `user-{id}`, joined on connect. */
export const UserChannel = numbered("user-");
export const ChannelName = z.union([JobChannel, ClientChannel, UserChannel]);
export type ChannelName = z.infer<typeof ChannelName>;

// ---- event names ----

/** The names SPEC.md section 4 lists ("Real-time events"), and those added since (docs/realtime-events.md). */
export const JOB_EVENTS = ["Progress", "Success", "Error"] as const;
export const PROJECT_EVENTS = ["ProjectUpdated", "IncidenceEstimateUpdated"] as const;
export const USER_NOTIFICATION_EVENTS = [
  "SurveySubmittedForApproval",
  "SurveyApproved",
  "SurveyApprovalDeclined",
  "ProjectSentOutForSurvey",
  "ProjectReady",
  "PasswordReset",
  "UserAddedToTeam",
  "CustomPanelProjectReadyForSurvey",
  // Not in SPEC 4's list: a scheduled wave that cannot start (its notification type, migration 0017).
  "ScheduleBlocked",
  // Not in SPEC 4: a project shared with an existing account (docs/decisions/, sharing).
  "ProjectShared",
  // Not in SPEC 4: field periods (migration 0036).
  "SurveyStalled",
  "SurveyClosedShort",
] as const;
/** The results chat's (and the staff conversations') answer as it is written. */
export const AI_CHAT_EVENTS = ["AiMessageStarted", "AiMessageDelta", "AiMessageCompleted", "AiMessageFailed"] as const;
/**
 * Server-only: raised by database triggers (migration 0034) when a login session ends or a
 * membership is removed; the API's hub closes sockets on them and never forwards them.
 */
export const SOCKET_CONTROL_EVENTS = ["SessionEnded", "MembershipRemoved"] as const;
export const DECLARED_EVENTS = [...JOB_EVENTS, ...PROJECT_EVENTS, ...USER_NOTIFICATION_EVENTS, ...AI_CHAT_EVENTS] as const;
export type DeclaredEventName = (typeof DECLARED_EVENTS)[number];
export type NotificationEventName = (typeof USER_NOTIFICATION_EVENTS)[number];
/** What a client may broadcast to its peers on a channel it joined: `client:<name>`. */
export const BroadcastName = z.templateLiteral(["client:", z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/)]);
export type BroadcastName = z.infer<typeof BroadcastName>;

// ---- data ----

const id = z.int().nonnegative();

/** A job's progress: `pct` 0 to 100, whole. A survey run's fielding sends it on the client channel with jobId `survey-run-{id}`. */
export const ProgressData = z.object({ jobId: z.string(), name: z.string(), pct: z.int().min(0).max(100), message: z.string().optional() });
/** A job's result (small JSON; null when it returned nothing, or with resultOmitted when too large for an event). */
export const SuccessData = z.object({ jobId: z.string(), name: z.string(), result: z.unknown(), resultOmitted: z.literal(true).optional() });
/** A job's failure: the message only (never a stack); `attempt` 1 for the first run; willRetry when the queue runs it again. */
export const ErrorData = z.object({ jobId: z.string(), name: z.string(), message: z.string(), attempt: z.int().positive(), willRetry: z.boolean() });

/**
 * Something about a project changed: a refetch hint. `action` names the lifecycle action or the
 * domain's step; `changed` the table an edit touched (the database trigger of migration 0019).
 */
export const ProjectUpdatedData = z.object({
  projectId: id,
  action: z.string().optional(),
  changed: z.string().optional(),
  statusCode: z.int().optional(),
  previousStatusCode: z.int().optional(),
  ownerUserId: id.optional(),
  duplicatedFromProjectId: id.optional(),
  fromClientId: id.optional(),
  toClientId: id.optional(),
  shared: z.boolean().optional(),
  watchers: z.array(id).optional(),
  surveyRunId: id.optional(),
  regionId: id.optional(),
  completes: z.int().nonnegative().optional(),
  targetCompletes: z.int().nonnegative().optional(),
  fieldEndAt: z.string().optional(),
  waveNumber: z.int().nullable().optional(),
  reason: z.string().optional(),
});
/** The project's stored incidence estimate (0 to 1) after IncidenceEstimate, and the one before. */
export const IncidenceEstimateUpdatedData = z.object({ projectId: id, incidenceEstimate: z.number().min(0).max(1), previous: z.number().nullable() });

/**
 * A notification raised for the user (its row in Notifications, and this event). The type's own
 * details (projectName, surveyUrl, statusCode...) come beside the declared fields as JSON values.
 */
export const NotificationData = z.looseObject({
  notificationId: id,
  /** Absent on the watchers' status notifications, which the database raises (migration 0018). */
  notificationTypeId: id.optional(),
  title: z.string(),
  body: z.string().nullable(),
  url: z.string().nullable(),
  projectId: id.optional(),
  clientId: id.optional(),
});

/**
 * Which answer an AI event belongs to: the results chat's carry resultsAiThreadId and jobId, the
 * staff conversations' (AiConversations ContinueConversation) aiConversationId.
 */
const AiRef = z.object({ replyToMessageId: id, resultsAiThreadId: id.optional(), jobId: z.string().optional(), aiConversationId: id.optional() });
export const AiMessageStartedData = AiRef;
/** A piece of the answer's text: `seq` from 0; the pieces in seq order are the answer. */
export const AiMessageDeltaData = AiRef.extend({ seq: z.int().nonnegative(), delta: z.string() });
/** The stored answer (messageId null when another run of the job stored it first). */
export const AiMessageCompletedData = AiRef.extend({ messageId: id.nullable(), content: z.string() });
export const AiMessageFailedData = AiRef.extend({ message: z.string(), willRetry: z.boolean().optional() });

// ---- the channels' events ----

const on = <C extends z.ZodType, E extends z.ZodType, D extends z.ZodType>(channel: C, event: E, data: D) => z.object({ channel, event, data });

export const JobEvent = z.discriminatedUnion("event", [
  on(JobChannel, z.literal("Progress"), ProgressData),
  on(JobChannel, z.literal("Success"), SuccessData),
  on(JobChannel, z.literal("Error"), ErrorData),
]);
export const ClientEvent = z.discriminatedUnion("event", [
  on(ClientChannel, z.literal("ProjectUpdated"), ProjectUpdatedData),
  on(ClientChannel, z.literal("IncidenceEstimateUpdated"), IncidenceEstimateUpdatedData),
  on(ClientChannel, z.literal("Progress"), ProgressData),
]);
export const UserEvent = z.discriminatedUnion("event", [
  on(UserChannel, z.enum(USER_NOTIFICATION_EVENTS), NotificationData),
  on(UserChannel, z.literal("AiMessageStarted"), AiMessageStartedData),
  on(UserChannel, z.literal("AiMessageDelta"), AiMessageDeltaData),
  on(UserChannel, z.literal("AiMessageCompleted"), AiMessageCompletedData),
  on(UserChannel, z.literal("AiMessageFailed"), AiMessageFailedData),
]);
/** A client's broadcast to its peers on a joined channel: its data is the sender's. */
export const BroadcastEvent = on(ChannelName, BroadcastName, z.unknown());
/**
 * An event over PostgreSQL NOTIFY's payload limit goes with its data dropped: the receiver learns
 * that it happened and fetches the details.
 */
export const TruncatedEvent = z.object({ channel: ChannelName, event: z.union([z.enum(DECLARED_EVENTS), BroadcastName]), data: z.null(), truncated: z.literal(true) });

/** Server-only events (never sent to a socket): the session `sessionId` ended; a membership of `clientId` went. */
export const SocketControlEvent = z.discriminatedUnion("event", [
  on(UserChannel, z.literal("SessionEnded"), z.object({ sessionId: z.string() })),
  on(UserChannel, z.literal("MembershipRemoved"), z.object({ clientId: id })),
]);

export type JobEvent = z.infer<typeof JobEvent>;
export type ClientEvent = z.infer<typeof ClientEvent>;
export type UserEvent = z.infer<typeof UserEvent>;
export type AiChatEvent = Extract<UserEvent, { event: (typeof AI_CHAT_EVENTS)[number] }>;
export const isAiChatEvent = (ev: LiveEvent): ev is AiChatEvent => ev.data !== null && AI_CHAT_EVENTS.some((name) => name === ev.event);
export type BroadcastEvent = z.infer<typeof BroadcastEvent>;
export type TruncatedEvent = z.infer<typeof TruncatedEvent>;
export type SocketControlEvent = z.infer<typeof SocketControlEvent>;
/** What the API may publish to sockets. */
export type DeclaredEvent = JobEvent | ClientEvent | UserEvent | BroadcastEvent;
/** What a socket receives on a channel. */
export type LiveEvent = DeclaredEvent | TruncatedEvent;
/**
 * A job's news: Progress, Success or Error with its data (on the job's channel, or a survey run's
 * Progress on the client channel).
 */
export type JobNews = Extract<LiveEvent, { event: (typeof JOB_EVENTS)[number]; data: object }>;
export const isJobNews = (ev: LiveEvent): ev is JobNews => ev.data !== null && JOB_EVENTS.some((name) => name === ev.event);

/**
 * The PowerPoint export job's result (Success's `result`): the stored deck's id, for
 * GET …/PowerPointExport/{exportId} (or RenewalPowerPointExport), and the path to download it.
 */
export const PowerPointJobResult = z.object({ exportId: z.string(), fileName: z.string(), sizeBytes: z.int().nonnegative(), charts: z.int().nonnegative(), download: z.string() });
export type PowerPointJobResult = z.infer<typeof PowerPointJobResult>;
/**
 * A data export's result, queued beyond the bound on synchronous exports (record 0134): the stored
 * file's id for GET …/ExportCsv/{exportId} or …/ExportExcel/{exportId}, and the path to download it.
 */
export const DataExportJobResult = z.object({ exportId: z.string(), fileName: z.string(), sizeBytes: z.int().nonnegative(), download: z.string() });
export type DataExportJobResult = z.infer<typeof DataExportJobResult>;

/** An event of a union without its channel (a publisher adds the channel it publishes on). */
export type WithoutChannel<T> = T extends unknown ? Omit<T, "channel"> : never;
export type ProgressData = z.infer<typeof ProgressData>;
export type SuccessData = z.infer<typeof SuccessData>;
export type ErrorData = z.infer<typeof ErrorData>;
export type ProjectUpdatedData = z.infer<typeof ProjectUpdatedData>;
export type NotificationData = z.infer<typeof NotificationData>;

// ---- control messages ----

/** The server's answers to a socket's actions. */
export const ControlReply = z.discriminatedUnion("event", [
  z.object({ event: z.literal("joined"), channel: z.string() }),
  z.object({ event: z.literal("left"), channel: z.string() }),
  z.object({ event: z.literal("pong") }),
  z.object({ event: z.literal("error"), message: z.string() }),
]);
export type ControlReply = z.infer<typeof ControlReply>;
export type ServerMessage = LiveEvent | ControlReply;

/** A socket's actions: join (a client channel needs its token), leave, broadcast `client:<name>`, ping. */
export const ClientMessage = z.discriminatedUnion("action", [
  z.object({ action: z.literal("join"), channel: z.string(), token: z.string().optional() }),
  z.object({ action: z.literal("leave"), channel: z.string() }),
  z.object({ action: z.literal("broadcast"), channel: z.string(), event: z.string(), data: z.unknown().optional() }),
  z.object({ action: z.literal("ping") }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

// ---- parsing ----

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const CONTROL = new Set<string>(["joined", "left", "pong", "error"]);
const Head = z.object({ channel: z.string().optional(), event: z.string() });

function refused<T>(what: string, error: z.ZodError): Parsed<T> {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, error: `${what}: ${where}${issue?.message ?? "invalid"}` };
}

/** The channel's union for an event, by the channel's prefix (null: no such channel). */
function channelSchema(channel: string) {
  if (channel.startsWith("job-")) return JobEvent;
  if (channel.startsWith("client-")) return ClientEvent;
  if (channel.startsWith("user-")) return UserEvent;
  return null;
}

/**
 * A channel's event as declared, with only its declared fields; otherwise why not, naming the
 * event, the channel and the first field that does not match.
 */
export function parseLiveEvent(raw: unknown): Parsed<LiveEvent> {
  const head = Head.safeParse(raw);
  if (!head.success) return { ok: false, error: "not an event: it has no event name" };
  const { channel, event } = head.data;
  const what = `${event} on ${channel ?? "no channel"}`;
  if (channel === undefined) return { ok: false, error: `${what}: an event names its channel` };
  const schema = typeof raw === "object" && raw !== null && "truncated" in raw ? TruncatedEvent : event.startsWith("client:") ? BroadcastEvent : channelSchema(channel);
  if (!schema) return { ok: false, error: `${what}: unknown channel` };
  const r = schema.safeParse(raw);
  return r.success ? { ok: true, value: r.data } : refused(what, r.error);
}

/** A server-only event (SessionEnded, MembershipRemoved) as declared, or why not. */
export function parseSocketControlEvent(raw: unknown): Parsed<SocketControlEvent> {
  const r = SocketControlEvent.safeParse(raw);
  return r.success ? { ok: true, value: r.data } : refused("socket control event", r.error);
}

/** One websocket message from the server (its text): a channel's event or a control answer, or why it is refused. */
export function parseServerMessage(text: string): Parsed<ServerMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  const head = Head.safeParse(raw);
  if (head.success && CONTROL.has(head.data.event)) {
    const r = ControlReply.safeParse(raw);
    return r.success ? { ok: true, value: r.data } : refused(head.data.event, r.error);
  }
  return parseLiveEvent(raw);
}

/** Whether a server message is a channel's event (not a control answer). */
export const isLiveEvent = (m: ServerMessage): m is LiveEvent => "data" in m;
