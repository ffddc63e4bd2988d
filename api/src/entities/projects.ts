// Projects and what they are made of: regions, test options, questions and their options,
// targets, objectives, shares, watchers; and the reference sets that shape them (statuses,
// frameworks, standard questions, categories). Tables: migrations/0001 and 0003; view: 0007.
//
// Scope: rows a project's results page reads are `shared` (a project share makes them readable to
// the share's user); they carry client_id and project_id. For Projects the project is the row itself
// (its key). Questions and QuestionOptions carry a nullable project_id: template questions
// (project_id null) are reachable by the client only.
import { z } from "@hono/zod-openapi";
import { entity, f, nav, type EntitySetDef } from "./types.ts";
import { ClientFields } from "./tenancy.ts";

/** An uploaded file as a row stores it (FileUploadUrl's key; signed links come from ProjectFileUrls). */
const storedFile = z.object({ key: z.string(), fileType: z.string(), fileName: z.string().optional() });

/**
 * Project fields that domain routes write besides the generic PATCH (POST /Projects' CreateProject,
 * AdminEdit, ScheduleProject): each declared once, here, with its limits (issue 34). The registry
 * reads them below and the domains' bodies pick them, so a limit is the same on every route.
 * Values only: whether a body may leave a field out or send null is each body's (and the column's).
 */
export const ProjectFields = {
  projectName: z.string().trim().min(1).max(200),
  productType: ClientFields.industry.describe("An industry code: what benchmark 3 compares within."),
  brandName: z.string().trim().max(200),
  researchNote: z.string().max(10_000),
  scheduleWavesRequired: z.number().int().min(1).max(104),
  scheduleFrequencyWeeks: z.number().int().min(1).max(104),
};

/**
 * Questions and QuestionOptions fields, declared once: POST and PATCH /Questions (which replace the
 * generic writes) and the row schemas read them.
 */
export const QuestionFields = {
  questionText: z.string().trim().min(1).max(2000),
  questionTitle: z.string().trim().max(200),
  optionText: z.string().trim().min(1).max(500),
};

/** TestOptions fields a domain route writes too (SuperAdminUpdate), declared once. */
export const TestOptionFields = {
  conceptText: z.string().trim().min(1).max(500),
};

const stamps = { createdAt: f.createdAt(), updatedAt: f.updatedAt() };
/** The owning project: given on POST, never moved to another project afterwards. */
const projectRef = () => f.int({ required: true, updatable: false });

export const projectsSets: EntitySetDef[] = [
  entity({
    name: "Projects",
    table: "projects",
    scope: "shared",
    projectColumn: "id",
    verbs: ["post", "patch", "delete"],
    softDelete: true,
    description: "A test of ideas, messages, questions or a new product, run as surveys on regional panels.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectName: f.string({ required: true, schema: ProjectFields.projectName }),
      projectTypeId: f.int({ required: true, updatable: false, enumValues: [1, 2, 3, 4] }),
      projectType: f.string({ readOnly: true, enumValues: ["Idea", "Message", "Question", "Npd"] }),
      // Lifecycle actions (Submit, Approve, ...) change the status; never a plain write.
      statusCode: f.int({ readOnly: true }),
      frameworkId: f.int({ nullable: true }),
      categoryId: f.int({ nullable: true }),
      productType: f.string({ nullable: true, schema: ProjectFields.productType }),
      launchDate: f.date({ nullable: true, description: "NPD: the product's launch date." }),
      scheduleWavesRequired: f.int({ nullable: true, schema: ProjectFields.scheduleWavesRequired }),
      scheduleFrequencyWeeks: f.int({ nullable: true, schema: ProjectFields.scheduleFrequencyWeeks }),
      scheduleStartDate: f.date({ nullable: true }),
      wavesRequired: f.boolean(),
      schedulePause: f.boolean(),
      splitCellQuota: f.boolean(),
      fieldPeriodDays: f.int({ nullable: true, min: 1, max: 90, description: "Days a run fields before it closes with the completes it has (null: 14)." }),
      isBranded: f.boolean(),
      brandName: f.string({ nullable: true, schema: ProjectFields.brandName }),
      researchNote: f.string({ nullable: true, schema: ProjectFields.researchNote }),
      activeProjectObjectiveId: f.int({ nullable: true }),
      // Set by the group actions (CreateUsageAndAttitudeSeedProject, Move).
      projectGroupVersionId: f.int({ nullable: true, readOnly: true }),
      ownerUserId: f.int({ nullable: true, readOnly: true, description: "Changed by UpdateProjectOwner." }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      incidenceEstimate: f.number({ nullable: true, readOnly: true, description: "Share of panellists who qualify (0-1)." }),
      submittedAt: f.datetime({ nullable: true, readOnly: true }),
      approvedAt: f.datetime({ nullable: true, readOnly: true }),
      completedAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
      deletedAt: f.deletedAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      status: nav.one("ProjectStatuses", "statusCode"),
      framework: nav.one("Frameworks", "frameworkId"),
      category: nav.one("Categories", "categoryId"),
      activeProjectObjective: nav.one("ProjectObjectives", "activeProjectObjectiveId"),
      projectGroupVersion: nav.one("ProjectGroupVersions", "projectGroupVersionId"),
      owner: nav.one("Users", "ownerUserId"),
      createdByUser: nav.one("Users", "createdByUserId"),
      estimatedProjectDuration: nav.one("EstimatedProjectDuration", "id", "projectId"),
      projectsRegions: nav.many("ProjectsRegions", "projectId"),
      projectWeeks: nav.many("ProjectWeeks", "projectId"),
      projectSchedules: nav.many("ProjectSchedules", "projectId"),
      projectQuestions: nav.many("ProjectQuestions", "projectId"),
      questions: nav.many("Questions", "projectId"),
      testOptions: nav.many("TestOptions", "projectId"),
      targets: nav.many("Targets", "projectId"),
      crossedQuotaCells: nav.many("CrossedQuotaCells", "projectId"),
      projectObjectives: nav.many("ProjectObjectives", "projectId"),
      aiProjectSummaries: nav.many("AiProjectSummaries", "projectId"),
      segments: nav.many("Segments", "projectId"),
      projectShares: nav.many("ProjectShares", "projectId"),
      projectWatchers: nav.many("ProjectWatchers", "projectId"),
      projectSurveySessions: nav.many("ProjectSurveySessions", "projectId"),
      creditLogs: nav.many("CreditLogs", "projectId"),
      themes: nav.many("Themes", "projectId"),
      regressionScores: nav.many("RegressionScores", "projectId"),
      diagnoseScoreThemes: nav.many("DiagnoseScoreThemes", "projectId"),
      projectEmailSummaries: nav.many("ProjectEmailSummaries", "projectId"),
      projectGroupTags: nav.many("ProjectGroupTags", "projectId"),
    },
  }),

  entity({
    name: "ProjectStatuses",
    table: "project_statuses",
    scope: "global",
    description: "Project status codes: 0 Draft ... 950 Demo.",
    fields: {
      id: f.fixedKey({ description: "The status code." }),
      name: f.string({ required: true }),
      codeName: f.string({ required: true }),
      ...stamps,
    },
  }),

  entity({
    name: "ProjectsRegions",
    table: "projects_regions",
    scope: "shared",
    description: "A region (panel market) a project fields in, with its sample size per wave.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      regionId: f.int({ required: true, updatable: false }),
      sampleSize: f.int({ description: "Completes per wave." }),
      isCustomerPanel: f.boolean(),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      region: nav.one("Regions", "regionId"),
    },
  }),

  entity({
    name: "TestOptions",
    table: "test_options",
    scope: "shared",
    verbs: ["post", "patch", "delete"],
    softDelete: true,
    defaultOrder: "id",
    description: "A concept tested by a project: an idea, a message, a product.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      conceptText: f.string({ required: true, schema: TestOptionFields.conceptText }),
      conceptDescription: f.string({ nullable: true }),
      file: f.json({ nullable: true, filterable: false, shape: storedFile, description: "{key, fileType, fileName} of an uploaded file (signed links: Projects ProjectFileUrls)." }),
      sortOrder: f.int(),
      ...stamps,
      deletedAt: f.deletedAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      projectQuestions: nav.many("ProjectQuestions", "testOptionId"),
      aiProjectSummaries: nav.many("AiProjectSummaries", "testOptionId"),
    },
  }),

  entity({
    name: "Questions",
    table: "questions",
    scope: "shared",
    verbs: ["post", "patch"],
    softDelete: true,
    description: "A question: written for a project, copied from a standard question, or kept as a template.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ nullable: true, updatable: false }),
      questionText: f.string({ required: true, schema: QuestionFields.questionText }),
      questionTitle: f.string({ nullable: true, schema: QuestionFields.questionTitle }),
      questionTypeId: f.int({ required: true, enumValues: [1, 2, 3, 4] }),
      marketReachEnabled: f.boolean(),
      randomizeOptions: f.boolean(),
      minChoices: f.int({ nullable: true }),
      maxChoices: f.int({ nullable: true }),
      s3File: f.json({ nullable: true, filterable: false, shape: storedFile, description: "{key, fileType, fileName} of an uploaded file (signed links: Projects ProjectFileUrls)." }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      ...stamps,
      deletedAt: f.deletedAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      createdByUser: nav.one("Users", "createdByUserId"),
      questionOptions: nav.many("QuestionOptions", "questionId"),
      targets: nav.many("Targets", "questionId"),
      projectQuestions: nav.many("ProjectQuestions", "questionId"),
      questionTemplates: nav.many("QuestionTemplates", "questionId"),
    },
  }),

  entity({
    name: "QuestionOptions",
    table: "question_options",
    scope: "shared",
    defaultOrder: "sortOrder",
    description: "An answer option of a question (written through the Questions calls).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: f.int({ nullable: true, readOnly: true, description: "The question's project, copied." }),
      questionId: f.int({ required: true, updatable: false }),
      optionText: f.string({ required: true, schema: QuestionFields.optionText }),
      sortOrder: f.int(),
      exclusive: f.boolean(),
      isNotSure: f.boolean(),
      isOther: f.boolean(),
      standardAnswerValue: f.int({ nullable: true, enumValues: [1, 2, 3, 4], description: "1 Top .. 4 Bottom." }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      question: nav.one("Questions", "questionId"),
      project: nav.one("Projects", "projectId"),
    },
  }),

  entity({
    name: "QuestionTemplates",
    table: "question_templates",
    scope: "client",
    verbs: ["post", "delete"],
    softDelete: true,
    description: "A saved question a team (or an org, for its teams) reuses in new projects.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      questionId: f.int({ required: true, updatable: false }),
      name: f.string({ required: true, maxLength: 200 }),
      description: f.string({ nullable: true }),
      questionPositionId: f.int({ nullable: true }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      ...stamps,
      deletedAt: f.deletedAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      question: nav.one("Questions", "questionId"),
      createdByUser: nav.one("Users", "createdByUserId"),
    },
  }),

  entity({
    name: "ProjectQuestions",
    table: "project_questions",
    scope: "shared",
    verbs: ["delete"],
    softDelete: true,
    defaultOrder: "questionPositionId,sortOrder",
    description: "A question as asked in a project: its position, order, routing and test option.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      questionId: f.int({ required: true, updatable: false }),
      standardQuestionId: f.int({ nullable: true, updatable: false }),
      questionPositionId: f.int({ required: true, enumValues: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] }),
      sortOrder: f.int(),
      testOptionId: f.int({ nullable: true }),
      routing: f.json({ nullable: true, filterable: false, description: "{routingConditions: [...]}" }),
      ...stamps,
      deletedAt: f.deletedAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      question: nav.one("Questions", "questionId"),
      standardQuestion: nav.one("StandardQuestions", "standardQuestionId"),
      testOption: nav.one("TestOptions", "testOptionId"),
      themes: nav.many("Themes", "projectQuestionId"),
      aiProjectSummaries: nav.many("AiProjectSummaries", "projectQuestionId"),
    },
  }),

  entity({
    name: "ProjectObjectives",
    table: "project_objectives",
    scope: "shared",
    verbs: ["post", "delete"],
    description: "A research objective the AI summaries answer (Project.activeProjectObjective).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      summary: f.string({ required: true, maxLength: 2000 }),
      createdByUserId: f.int({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      createdByUser: nav.one("Users", "createdByUserId"),
      aiProjectSummaries: nav.many("AiProjectSummaries", "projectObjectiveId"),
    },
  }),

  entity({
    name: "Targets",
    table: "targets",
    scope: "shared",
    description: "Who qualifies for a project: a demographic option or a screener answer (ChangeTargets).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      regionId: f.int({ nullable: true }),
      questionId: f.int({ nullable: true }),
      systemQuestionOptionId: f.int({ nullable: true }),
      questionOptionId: f.int({ nullable: true }),
      quotaPercent: f.number({ nullable: true }),
      onlyThese: f.boolean(),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      region: nav.one("Regions", "regionId"),
      question: nav.one("Questions", "questionId"),
      systemQuestionOption: nav.one("SystemQuestionOption", "systemQuestionOptionId"),
      questionOption: nav.one("QuestionOptions", "questionOptionId"),
    },
  }),

  entity({
    name: "CrossedQuotaCells",
    table: "crossed_quota_cells",
    scope: "shared",
    description:
      "A crossed (interlocked) quota cell of a market: a pair of answers of two demographic questions (firstOptionId of the question with the lower id) and its share of the market's completes; the cells of one crossing add up to 100% (ChangeTargets crossedQuotas).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      regionId: f.int(),
      firstOptionId: f.int(),
      secondOptionId: f.int(),
      quotaPercent: f.number(),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      region: nav.one("Regions", "regionId"),
      firstOption: nav.one("SystemQuestionOption", "firstOptionId"),
      secondOption: nav.one("SystemQuestionOption", "secondOptionId"),
    },
  }),

  entity({
    name: "ProjectShares",
    table: "project_shares",
    scope: "client",
    verbs: ["post", "delete"],
    description: "A project shared with a person by e-mail; userId is set once they sign in.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      userId: f.int({ nullable: true, readOnly: true }),
      email: f.string({ required: true, updatable: false, maxLength: 320 }),
      sharedByUserId: f.int({ nullable: true, readOnly: true }),
      linkInviteId: f.int({ nullable: true, readOnly: true }),
      acceptedAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      user: nav.one("Users", "userId"),
      sharedByUser: nav.one("Users", "sharedByUserId"),
      linkInvite: nav.one("LinkInvites", "linkInviteId"),
    },
  }),

  entity({
    name: "ProjectWatchers",
    table: "project_watchers",
    scope: "shared",
    description: "A user following a project (UpdateWatchers, StartWatching, StopWatching).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      projectId: projectRef(),
      userId: f.int({ required: true, updatable: false }),
      createdAt: f.createdAt(),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      user: nav.one("Users", "userId"),
    },
  }),

  entity({
    name: "Frameworks",
    table: "frameworks",
    scope: "global",
    description: "A project framework: which standard questions it asks and which results pages it leads to.",
    fields: {
      id: f.fixedKey(),
      title: f.string({ required: true }),
      projectTypeId: f.int({ required: true, enumValues: [1, 2, 3, 4] }),
      description: f.string({ nullable: true }),
      objectiveSummaries: f.json({ description: "Suggested objectives (array of strings)." }),
      isPriceSensitivity: f.boolean(),
      isMarketReach: f.boolean(),
      isAbTest: f.boolean(),
      sortOrder: f.int(),
      ...stamps,
    },
    nav: { projects: nav.many("Projects", "frameworkId") },
  }),

  entity({
    name: "StandardQuestions",
    table: "standard_questions",
    scope: "global",
    description: "The standard (framework) questions 1-25, most on the 4-point scale.",
    fields: {
      id: f.fixedKey(),
      title: f.string({ required: true }),
      questionText: f.string({ required: true }),
      questionTypeId: f.int({ required: true, enumValues: [1, 2, 3, 4] }),
      description: f.string({ nullable: true }),
      displayOrder: f.int(),
      isPriceSensitivity: f.boolean(),
      isAddOn: f.boolean(),
      isScaled: f.boolean({ description: "Answered on the 4-point scale (top-2-box applies)." }),
      ...stamps,
    },
  }),

  entity({
    name: "Categories",
    table: "categories",
    scope: "global",
    defaultOrder: "sortOrder",
    description: "Product categories, two levels (benchmarks 8 and 10).",
    fields: {
      id: f.key(),
      name: f.string({ required: true, maxLength: 200 }),
      parentId: f.int({ nullable: true }),
      industry: f.string({ nullable: true }),
      sortOrder: f.int(),
      ...stamps,
    },
    nav: {
      parent: nav.one("Categories", "parentId"),
      children: nav.many("Categories", "parentId"),
    },
  }),

  entity({
    name: "EstimatedProjectDuration",
    table: "estimated_project_duration",
    key: "projectId",
    scope: "shared",
    view: true,
    description: "Fielding days a project needs: the slowest region at the project's incidence (computed).",
    fields: {
      projectId: f.int({ readOnly: true }),
      clientId: f.clientId(),
      regionCount: f.int({ readOnly: true }),
      totalSampleSize: f.int({ readOnly: true }),
      incidenceEstimate: f.number({ nullable: true, readOnly: true }),
      estimatedDays: f.int({ nullable: true, readOnly: true }),
      estimatedCompletionDate: f.date({ nullable: true, readOnly: true }),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
    },
  }),
];
