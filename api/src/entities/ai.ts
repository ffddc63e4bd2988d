// AI: prompts and their versions (the provider's, global), project summaries and e-mailed
// summaries (a project's), and chats (their author's: `user` scope).
// Tables: migrations/0006_create_ai_admin.sql.
import { z } from "@hono/zod-openapi";
import { entity, f, nav, type EntitySetDef } from "./types.ts";
import { ResponseFilterSchema } from "../domains/results/filters.ts";

const Sentiment = z.enum(["Positive", "Negative", "Neutral", "Mixed"]);
/** Where a cited figure comes from (domains/ai/facts.ts FigureSource): the results function and its arguments. */
const FigureSource = z.discriminatedUnion("fn", [
  z.object({ fn: z.literal("QualResults"), filters: ResponseFilterSchema, benchmarkTypeId: z.number().int().nullable(), standardQuestionId: z.number().int(), testOptionId: z.number().int().nullable(), field: z.enum(["top2", "n", "vsBenchmark.diff", "vsBenchmark.top2Percentage", "vsOthers.diff"]), otherTestOptionId: z.number().int().nullable().optional() }),
  z.object({ fn: z.literal("Difference"), a: z.string(), b: z.string() }),
  z.object({ fn: z.literal("PriceSensitivityResults"), filters: ResponseFilterSchema, testOptionId: z.number().int().nullable(), field: z.enum(["opp", "ipp", "pmc", "pme"]) }),
  z.object({ fn: z.literal("MarketReachResults"), filters: ResponseFilterSchema, k: z.number().int(), field: z.literal("reach") }),
  z.object({ fn: z.literal("QuestionResults"), filters: ResponseFilterSchema, projectQuestionId: z.number().int(), testOptionId: z.number().int().nullable(), questionOptionId: z.number().int(), field: z.literal("share") }),
  z.object({ fn: z.literal("VerbatimCount"), filters: ResponseFilterSchema, projectQuestionId: z.number().int(), themeId: z.number().int(), testOptionId: z.number().int().nullable().optional(), sentiment: Sentiment.nullable().optional(), field: z.literal("share") }),
  z.object({ fn: z.literal("Verbatim"), filters: ResponseFilterSchema, projectQuestionId: z.number().int(), testOptionId: z.number().int().nullable(), themeId: z.number().int().nullable(), sentiment: Sentiment.nullable(), answerId: z.number().int(), field: z.literal("text") }),
  z.object({ fn: z.literal("DriverResults"), filters: ResponseFilterSchema, testOptionId: z.number().int().nullable(), standardQuestionId: z.number().int(), field: z.literal("importance") }),
]);
/** An answer's cited figures: each recomputable from its source. */
const ReferencesData = z.object({ figures: z.array(z.object({ ref: z.string(), text: z.string(), value: z.number(), source: FigureSource })).optional() });

const stamps = { createdAt: f.createdAt(), updatedAt: f.updatedAt() };

export const aiSets: EntitySetDef[] = [
  entity({
    name: "Prompts",
    table: "prompts",
    scope: "global",
    verbs: ["post", "patch", "delete"],
    defaultOrder: "name",
    description: "An AI prompt of the provider, by what it produces; its text lives in versions.",
    fields: {
      id: f.key(),
      name: f.string({ required: true, maxLength: 200 }),
      promptType: f.string({ required: true, maxLength: 100 }),
      description: f.string({ nullable: true }),
      publishedVersionId: f.int({ nullable: true, readOnly: true, description: "Changed by PromptVersions Publish." }),
      isActive: f.boolean(),
      ...stamps,
    },
    nav: {
      publishedVersion: nav.one("PromptVersions", "publishedVersionId"),
      promptVersions: nav.many("PromptVersions", "promptId"),
    },
  }),

  entity({
    name: "PromptVersions",
    table: "prompt_versions",
    scope: "global",
    verbs: ["post", "patch", "delete"],
    description: "One version of a prompt's text and model settings; numbered 1, 2, ... per prompt.",
    fields: {
      id: f.key(),
      promptId: f.int({ required: true, updatable: false }),
      versionNumber: f.int({ readOnly: true }),
      systemPrompt: f.string({ nullable: true }),
      template: f.string({ required: true }),
      model: f.string({ nullable: true, maxLength: 200 }),
      temperature: f.number({ nullable: true }),
      settings: f.json({ filterable: false }),
      notes: f.string({ nullable: true }),
      isPublished: f.boolean({ readOnly: true }),
      publishedAt: f.datetime({ nullable: true, readOnly: true }),
      publishedByUserId: f.int({ nullable: true, readOnly: true }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      prompt: nav.one("Prompts", "promptId"),
      publishedByUser: nav.one("Users", "publishedByUserId"),
      createdByUser: nav.one("Users", "createdByUserId"),
    },
  }),

  entity({
    name: "AiProjectSummaries",
    table: "ai_project_summaries",
    scope: "shared",
    verbs: ["post"],
    description: "An AI summary of a project's results, optionally for a segment, test option, question or objective.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ required: true, updatable: false }),
      summaryType: f.string({ required: true, updatable: false, maxLength: 100 }),
      segmentId: f.int({ nullable: true, updatable: false }),
      testOptionId: f.int({ nullable: true, updatable: false }),
      projectQuestionId: f.int({ nullable: true, updatable: false }),
      projectObjectiveId: f.int({ nullable: true, updatable: false }),
      regionId: f.int({ nullable: true, updatable: false }),
      promptVersionId: f.int({ nullable: true, readOnly: true }),
      filters: f.json({ nullable: true, filterable: false }),
      benchmarkTypeId: f.int({ nullable: true, readOnly: true, description: "The benchmark it was written against (0 'None'); null: the default, all customers (1)" }),
      status: f.string({ readOnly: true, enumValues: ["Pending", "Running", "Ready", "Failed"] }),
      title: f.string({ nullable: true, readOnly: true }),
      content: f.string({ nullable: true, readOnly: true }),
      error: f.string({ nullable: true, readOnly: true }),
      generatedAt: f.datetime({ nullable: true, readOnly: true }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      trigger: f.string({ readOnly: true, enumValues: ["ResultsReady", "ObjectiveSaved", "Segment", "Requested"], description: "Why it was made: processing end, an objective saved, a segment's GenerateSummaries, or asked for." }),
      referencesData: f.json({ nullable: true, readOnly: true, filterable: false, description: "The figures the content cites: [{ref, text, value, source}], each recomputable from the results function its source names." }),
      provider: f.string({ nullable: true, readOnly: true, description: "local or openai" }),
      model: f.string({ nullable: true, readOnly: true }),
      usage: f.json({ nullable: true, readOnly: true, filterable: false, description: "Tokens: {promptTokens, completionTokens, totalTokens, estimated?}" }),
      jobId: f.string({ nullable: true, readOnly: true, description: "The job writing it: Progress, Success and Error on the websocket channel job-{jobId}" }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      segment: nav.one("Segments", "segmentId"),
      testOption: nav.one("TestOptions", "testOptionId"),
      projectQuestion: nav.one("ProjectQuestions", "projectQuestionId"),
      projectObjective: nav.one("ProjectObjectives", "projectObjectiveId"),
      region: nav.one("Regions", "regionId"),
      promptVersion: nav.one("PromptVersions", "promptVersionId"),
      createdByUser: nav.one("Users", "createdByUserId"),
    },
  }),

  entity({
    name: "ProjectEmailSummaries",
    table: "project_email_summaries",
    scope: "client",
    description: "A project's results summary e-mailed to its team (admin email-summaries).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ readOnly: true }),
      subject: f.string({ readOnly: true }),
      body: f.string({ readOnly: true, filterable: false }),
      status: f.string({ readOnly: true, enumValues: ["Draft", "Approved", "Sent", "Failed"] }),
      recipients: f.json({ readOnly: true, filterable: false }),
      promptVersionId: f.int({ nullable: true, readOnly: true }),
      sentAt: f.datetime({ nullable: true, readOnly: true }),
      weekOf: f.date({ nullable: true, readOnly: true, description: "The Monday of the week of a weekly results email (one per project and week)" }),
      error: f.string({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      promptVersion: nav.one("PromptVersions", "promptVersionId"),
    },
  }),

  entity({
    name: "AiConversations",
    table: "ai_conversations",
    scope: "user",
    description: "A user's AI assistant conversation (MyConversations); messages via GetMessages.",
    fields: {
      id: f.key(),
      userId: f.int({ readOnly: true }),
      clientId: f.int({ nullable: true, readOnly: true }),
      projectId: f.int({ nullable: true, readOnly: true }),
      title: f.string({ nullable: true, readOnly: true }),
      status: f.string({ readOnly: true, enumValues: ["Active", "Closed"] }),
      model: f.string({ nullable: true, readOnly: true }),
      lastMessageAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      user: nav.one("Users", "userId"),
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      aiConversationEvaluations: nav.many("AiConversationEvaluations", "aiConversationId"),
    },
  }),

  entity({
    name: "AiConversationEvaluations",
    table: "ai_conversation_evaluations",
    scope: "user",
    description: "A staff review of a conversation's quality; userId is the conversation's owner.",
    fields: {
      id: f.key(),
      aiConversationId: f.int({ readOnly: true }),
      userId: f.int({ readOnly: true }),
      evaluatorUserId: f.int({ nullable: true, readOnly: true }),
      score: f.int({ nullable: true, readOnly: true }),
      passed: f.boolean({ nullable: true, readOnly: true }),
      notes: f.string({ nullable: true, readOnly: true }),
      criteria: f.json({ readOnly: true, filterable: false }),
      ...stamps,
    },
    nav: {
      aiConversation: nav.one("AiConversations", "aiConversationId"),
      user: nav.one("Users", "userId"),
      evaluatorUser: nav.one("Users", "evaluatorUserId"),
    },
  }),

  entity({
    name: "ResultsAiThreads",
    table: "results_ai_threads",
    scope: "user",
    verbs: ["post", "patch"],
    description: "A results-page AI chat about one project, private to its author.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ required: true, updatable: false }),
      userId: f.int({ readOnly: true }),
      title: f.string({ nullable: true, maxLength: 200 }),
      filters: f.json({ nullable: true, filterable: false }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      user: nav.one("Users", "userId"),
      resultsAiMessages: nav.many("ResultsAiMessages", "resultsAiThreadId"),
    },
  }),

  entity({
    name: "ResultsAiMessages",
    table: "results_ai_messages",
    scope: "user",
    verbs: ["post"],
    defaultOrder: "id",
    description: "A message of a results chat: the user's question or the assistant's answer.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ readOnly: true, description: "The thread's project, copied." }),
      userId: f.int({ readOnly: true }),
      resultsAiThreadId: f.int({ required: true, updatable: false }),
      role: f.string({ readOnly: true, enumValues: ["user", "assistant"] }),
      content: f.string({ required: true, updatable: false, maxLength: 20000 }),
      referencesData: f.json({ nullable: true, readOnly: true, filterable: false, shape: ReferencesData }),
      feedback: f.string({ nullable: true, readOnly: true, enumValues: ["Positive", "Negative"] }),
      feedbackComment: f.string({ nullable: true, readOnly: true }),
      provider: f.string({ nullable: true, readOnly: true, description: "An answer's provider: local or openai" }),
      model: f.string({ nullable: true, readOnly: true }),
      usage: f.json({ nullable: true, readOnly: true, filterable: false, description: "An answer's tokens: {promptTokens, completionTokens, totalTokens, estimated?}" }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      user: nav.one("Users", "userId"),
      resultsAiThread: nav.one("ResultsAiThreads", "resultsAiThreadId"),
    },
  }),
];
