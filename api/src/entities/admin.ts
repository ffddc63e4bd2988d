// Administration: the credit ledger, notifications, the data events log, feature flags.
// Tables: migrations/0001 (reference), 0002 (client features), 0004 (credit logs), 0006.
import { entity, f, nav, type EntitySetDef } from "./types.ts";

const stamps = { createdAt: f.createdAt(), updatedAt: f.updatedAt() };

export const adminSets: EntitySetDef[] = [
  entity({
    name: "CreditLogs",
    writeAccess: "staff",
    table: "credit_logs",
    // Money, not project content: a project share does not reveal the team's ledger.
    scope: "client",
    verbs: ["post", "patch", "delete"],
    defaultOrder: "createdAt",
    description: "A credit ledger row; a client's balance is the sum of its rows.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      type: f.int({ required: true, description: "A credit log type id (CreditLogTypes)." }),
      creditAmount: f.number({ required: true, description: "Positive adds credits, negative spends them." }),
      projectId: f.int({ nullable: true }),
      surveyRunId: f.int({ nullable: true, readOnly: true }),
      relatedClientId: f.int({ nullable: true, readOnly: true, description: "The other side of a transfer." }),
      transferId: f.uuid({ nullable: true, readOnly: true }),
      description: f.string({ nullable: true, maxLength: 1000 }),
      hubspotDealId: f.string({ nullable: true }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      creditLogType: nav.one("CreditLogTypes", "type"),
      project: nav.one("Projects", "projectId"),
      surveyRun: nav.one("SurveyRuns", "surveyRunId"),
      relatedClient: nav.one("Clients", "relatedClientId"),
      createdByUser: nav.one("Users", "createdByUserId"),
      projectSchedules: nav.many("ProjectSchedules", "creditLogId"),
    },
  }),

  entity({
    name: "CreditLogTypes",
    table: "credit_log_types",
    scope: "global",
    description: "Credit log types: purchases, runs, adjustments (80-85, 90 are project adjustments), transfers.",
    fields: {
      id: f.fixedKey(),
      name: f.string({ required: true }),
      isProjectAdjustment: f.boolean(),
      isPending: f.boolean(),
      description: f.string({ nullable: true }),
      ...stamps,
    },
  }),

  entity({
    name: "Notifications",
    table: "notifications",
    scope: "user",
    verbs: ["post"],
    defaultOrder: "createdAt",
    description: "A notification to one user (MarkAsRead sets readAt).",
    fields: {
      id: f.key(),
      // The recipient. The generic POST writes to the caller (user scope); notifications for
      // others are written by services (jobs, staff actions), never from a body.
      userId: f.int({ readOnly: true }),
      clientId: f.int({ nullable: true, readOnly: true, description: "The client the notification is about, if any." }),
      notificationTypeId: f.int({ required: true, updatable: false }),
      title: f.string({ required: true, maxLength: 200 }),
      body: f.string({ nullable: true, maxLength: 2000 }),
      projectId: f.int({ nullable: true, updatable: false }),
      url: f.string({ nullable: true, maxLength: 2000 }),
      data: f.json({ filterable: false }),
      readAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      user: nav.one("Users", "userId"),
      client: nav.one("Clients", "clientId"),
      notificationType: nav.one("NotificationTypes", "notificationTypeId"),
      project: nav.one("Projects", "projectId"),
    },
  }),

  entity({
    name: "NotificationTypes",
    table: "notification_types",
    scope: "global",
    description: "The user notifications of SPEC 4 (SurveySubmittedForApproval, ...).",
    fields: {
      id: f.fixedKey(),
      name: f.string({ required: true }),
      description: f.string({ nullable: true }),
      defaultTitle: f.string({ required: true }),
      ...stamps,
    },
  }),

  entity({
    name: "DataEventsLog",
    table: "data_events_log",
    // Rows without a client (prompt events, system events) are readable by staff only.
    scope: "client",
    defaultOrder: "createdAt",
    description: "Append-only log of domain events (project Created, StatusChanged, ..., prompt versions).",
    fields: {
      id: f.bigint({ readOnly: true }),
      clientId: f.int({ nullable: true, readOnly: true }),
      userId: f.int({ nullable: true, readOnly: true }),
      entityType: f.string({ readOnly: true }),
      entityId: f.int({ nullable: true, readOnly: true }),
      event: f.string({ readOnly: true }),
      projectId: f.int({ nullable: true, readOnly: true }),
      promptId: f.int({ nullable: true, readOnly: true }),
      data: f.json({ readOnly: true, filterable: false }),
      createdAt: f.createdAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      user: nav.one("Users", "userId"),
      project: nav.one("Projects", "projectId"),
      prompt: nav.one("Prompts", "promptId"),
    },
  }),

  entity({
    name: "FeatureFlags",
    table: "feature_flags",
    scope: "global",
    description: "A feature flag: on for everyone, on for staff only, or per client (ClientFeatures).",
    fields: {
      id: f.key(),
      ff: f.string({ required: true }),
      description: f.string({ nullable: true }),
      // Switched by Enable / Disable / EnableIdeally / DisableIdeally.
      isEnabled: f.boolean({ readOnly: true }),
      isEnabledForStaff: f.boolean({ readOnly: true }),
      ...stamps,
    },
    nav: { clientFeatures: nav.many("ClientFeatures", "featureFlagId") },
  }),

  entity({
    name: "ClientFeatures",
    writeAccess: "staff",
    table: "client_features",
    scope: "client",
    verbs: ["post", "delete"],
    description: "A feature flag switched for one client.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      featureFlagId: f.int({ required: true, updatable: false }),
      isEnabled: f.boolean(),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      featureFlag: nav.one("FeatureFlags", "featureFlagId"),
    },
  }),
];
