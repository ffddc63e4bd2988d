// Request and response shapes of project authoring (published in the OpenAPI document).
import { z } from "@hono/zod-openapi";
import { ALLOWED_FILE_TYPES } from "../../storage/storage.ts";
import { ProjectFields, QuestionFields, TestOptionFields } from "../../entities/projects.ts";

const id = () => z.number().int().positive();
const ids = (max = 200) => z.array(id()).min(1).max(max);

/** A crossed quota cell as ChangeTargets and FeasibilityEstimate take it (record 0128). */
export const CrossedQuotaCell = z.strictObject({
  regionId: id().describe("The market the cell applies in (one of the project's regions)"),
  systemQuestionOptionIds: z.tuple([id(), id()]).describe("The cell's pair of answers: one option of each of two demographic questions (SystemQuestionOption), in either order"),
  quotaPercent: z.number().gt(0).max(100).describe("The cell's share of the market's completes; the cells of one crossing (two questions in one market) add up to 100%"),
});

export const CreateProject = z
  .strictObject({
    projectName: ProjectFields.projectName,
    projectTypeId: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]).describe("1 Idea, 2 Message, 3 Question, 4 Npd"),
    frameworkId: z.number().int().describe("Must fit the type: Idea 1000, 1003, 1010, 1020; Message 2000, 2003; Question 3000 (3998 staff only); Npd 4000"),
    categoryId: z.number().int().nullable().optional(),
    productType: ProjectFields.productType.nullable().optional().describe("An industry code; the client's industry when omitted"),
    regionIds: z.array(id()).min(1).max(60).optional().describe("Default: the team's default region, else 1 (New Zealand). US states (56-104) need CanChooseUsStateMarkets"),
    sampleSize: z.number().int().min(1).max(100000).optional().describe("Completes per wave in each region (default 200)"),
    isBranded: z.boolean().optional(),
    brandName: ProjectFields.brandName.nullable().optional(),
    researchNote: ProjectFields.researchNote.nullable().optional(),
    launchDate: z.iso.date().nullable().optional().describe("NPD: the product's launch date"),
    splitCellQuota: z.boolean().optional(),
  })
  .openapi("CreateProject");

export const RegionIdsBody = z.strictObject({ regionIds: ids(60) }).openapi("ProjectRegionIds");

export const ChangeTargetsBody = z
  .strictObject({
    targets: z
      .array(
        z
          .strictObject({
            systemQuestionOptionId: id().nullable().optional().describe("A demographic option (SystemQuestionOption)"),
            questionOptionId: id().nullable().optional().describe("An option of one of the project's screener questions"),
            regionId: id().nullable().optional().describe("The region the target applies to (default: the option's region, or all)"),
            quotaPercent: z
              .number()
              .gt(0)
              .max(100)
              .nullable()
              .optional()
              .describe(
                "The share of the run's completes this answer may take; the quotas of one group (question) add up to at most 100%, the rest open to the group's other answers. Omitted: the target keeps its stored quota; null: no quota",
              ),
            onlyThese: z
              .boolean()
              .optional()
              .describe("The group (this target's question) takes only its targeted answers: with quotas on all of them, they must add up to 100%. Omitted: the target keeps its stored value"),
          })
          .refine((t) => (t.systemQuestionOptionId == null) !== (t.questionOptionId == null), {
            message: "Give systemQuestionOptionId or questionOptionId (one of them)",
          }),
      )
      .max(500),
    crossedQuotas: z
      .array(CrossedQuotaCell)
      .max(500)
      .optional()
      .describe(
        "Crossed (interlocked) quota cells, e.g. gender × age band: respondents whose pair of answers is no cell screen out, a full cell is over quota. Every cell lies within the two questions' targets, and a crossed question takes no quota of its own in that market. Omitted: the stored cells stay; []: none",
      ),
    regionIds: z.array(id()).min(1).max(60).optional().describe("When given, the project's regions become exactly these (targets and crossed cells of removed regions go)"),
    sampleSize: z
      .number()
      .int()
      .min(1)
      .max(100000)
      .optional()
      .describe("When given, the completes per wave in each of the project's regions (a Draft's: fixed from Submit on); added regions take the project's size"),
  })
  .openapi("ChangeTargets");

const FileRef = z
  .strictObject({
    key: z.string().min(1).max(512).describe("The key FileUploadUrl returned"),
    fileType: z.enum(ALLOWED_FILE_TYPES),
    fileName: z.string().max(255).optional(),
  })
  .openapi("FileRef");

const OptionBody = z.strictObject({
  id: id().optional().describe("PATCH: an existing option to keep (omit to add one)"),
  optionText: QuestionFields.optionText,
  exclusive: z.boolean().optional().describe("Multiple choice: choosing it clears the others (None of these)"),
  isOther: z.boolean().optional(),
  isNotSure: z.boolean().optional(),
});

const Routing = z
  .strictObject({
    routingConditions: z
      .array(z.strictObject({ projectQuestionId: id(), questionOptionIds: ids(100) }))
      .max(20)
      .describe("Shown only to respondents who gave one of the options to each linked project question"),
  })
  .openapi("Routing");

const questionFields = {
  questionTitle: QuestionFields.questionTitle.nullable().optional(),
  randomizeOptions: z.boolean().optional(),
  minChoices: z.number().int().min(0).nullable().optional(),
  maxChoices: z.number().int().min(1).nullable().optional(),
  s3File: FileRef.nullable().optional(),
  questionOptions: z.array(OptionBody).max(100).optional(),
  questionPositionId: z
    .number()
    .int()
    .min(1)
    .max(12)
    .optional()
    .describe("1 Screener, 2 InsideLoop, 3 OutsideLoop (follow-up), 4 Awareness, 6 Custom, 7 BeforeLoop, 8 BeforeInsideLoop, 9-12 group positions; 5 is the framework's"),
  testOptionId: id().nullable().optional().describe("Ask about one test option only"),
  routing: Routing.nullable().optional(),
};

export const CreateQuestion = z
  .strictObject({
    projectId: id().nullable().optional().describe("The project it is asked in; omit for a template question of the client"),
    questionText: QuestionFields.questionText,
    questionTypeId: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]).describe("1 single, 2 multiple, 3 text, 4 dropdown"),
    ...questionFields,
  })
  .openapi("CreateQuestion");

export const UpdateQuestion = z
  .strictObject({
    questionText: QuestionFields.questionText.optional(),
    questionTypeId: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]).optional(),
    ...questionFields,
  })
  .refine((b) => Object.keys(b).length > 0, { message: "Nothing to update" })
  .openapi("UpdateQuestion");

export const SuperAdminTestOptionUpdate = z
  .strictObject({
    conceptText: TestOptionFields.conceptText.optional(),
    conceptDescription: z.string().nullable().optional(),
    file: FileRef.nullable().optional(),
    sortOrder: z.number().int().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "Nothing to update" })
  .openapi("SuperAdminTestOptionUpdate");

export const SortOrderChange = z
  .strictObject({
    projectId: id(),
    projectQuestionIds: ids(500).describe("Every project question of one position group, in the new order"),
  })
  .openapi("SortOrderChange");

export const SortedQuestion = z
  .object({
    id: z.number().int(),
    questionId: z.number().int(),
    questionPositionId: z.number().int(),
    sortOrder: z.number().int(),
    sortKey: z.number().describe("SPEC 9: sort position (7 counts as 1) x 1,000,000 + sortOrder"),
  })
  .openapi("SortedProjectQuestion");

export const SynthQuestionBody = z
  .strictObject({
    projectId: id(),
    text: z.string().trim().min(1).max(5000).describe("e.g. 'Which do you prefer? Salted / Sweet / Sour (select all)'"),
    questionPositionId: z.number().int().min(1).max(12).optional().describe("Default 6 (Custom)"),
  })
  .openapi("ProcessSynthQuestion");

export const OrgTemplate = z
  .object({
    id: z.number().int().describe("The template (QuestionTemplates key)"),
    clientId: z.number().int(),
    clientName: z.string(),
    clientTier: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    questionPositionId: z.number().int().nullable(),
    questionId: z.number().int(),
    question: z.object({
      id: z.number().int(),
      questionText: z.string(),
      questionTitle: z.string().nullable(),
      questionTypeId: z.number().int(),
      randomizeOptions: z.boolean(),
      minChoices: z.number().int().nullable(),
      maxChoices: z.number().int().nullable(),
      s3File: z.any(),
      questionOptions: z.array(z.object({ id: z.number().int(), optionText: z.string(), sortOrder: z.number().int(), exclusive: z.boolean(), isOther: z.boolean(), isNotSure: z.boolean() })),
    }),
  })
  .openapi("OrgTemplateQuestion");

export const TargetFilters = z.strictObject({
  regionIds: z.array(id()).max(60).optional(),
  filterIds: z.array(id()).max(200).optional().describe("System question options the respondents also gave (OR within a question, AND across)"),
  dateFrom: z.iso.datetime({ offset: true }).optional(),
  dateTo: z.iso.datetime({ offset: true }).optional(),
  panelType: z.strictObject({ regionId: id().optional(), isCustomerPanel: z.boolean() }).nullable().optional(),
});

export const TargetQuestion = z
  .object({
    source: z.enum(["system", "question"]),
    id: z.number().int().describe("SystemQuestion or Questions key"),
    projectQuestionId: z.number().int().nullable(),
    questionPositionId: z.number().int().nullable(),
    questionText: z.string(),
    questionLabel: z.string(),
    questionCode: z.string().nullable(),
    questionTypeId: z.number().int(),
    options: z.array(
      z.object({
        systemQuestionOptionId: z.number().int().nullable(),
        questionOptionId: z.number().int().nullable(),
        answerLabel: z.string(),
        filterSubtext: z.string().nullable(),
        regionId: z.number().int().nullable(),
        exclusive: z.boolean(),
        isTarget: z.boolean().describe("The project targets it now"),
        count: z.number().int().describe("Past respondents in the regions who gave it"),
      }),
    ),
  })
  .openapi("TargetQuestion");

export const PriceBody = z
  .strictObject({
    testOptionIds: z.array(id()).min(1).max(50).optional().describe("Default: every test option"),
    currencyCode: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional()
      .describe("Must be the project's regions' currency (the default)"),
    minPrice: z.number().min(0).nullable().optional(),
    maxPrice: z.number().positive().nullable().optional(),
    purchaseIntent: z.boolean().optional().describe("Newton-Miller-Smith purchase intent at the bargain and expensive prices"),
    purchaseIntentCalibration: z.array(z.number().min(0).max(1)).length(5).optional().describe("Probabilities for answers 5..1 (default 0.7, 0.5, 0.3, 0.1, 0)"),
  })
  .openapi("PriceSensitivitiesBody");

export const PriceSettings = z
  .object({
    projectId: z.number().int(),
    currencyCode: z.string(),
    purchaseIntent: z.boolean(),
    purchaseIntentCalibration: z.array(z.number()),
    items: z.array(
      z.object({
        id: z.number().int(),
        testOptionId: z.number().int().nullable(),
        minPrice: z.number().nullable(),
        maxPrice: z.number().nullable(),
        projectQuestionIds: z.array(z.number().int()).describe("The four price questions (standard questions 19-22) for the test option"),
      }),
    ),
  })
  .openapi("PriceSensitivities");

export const ReachBody = z
  .strictObject({
    testOptionIds: z.array(id()).min(2).max(50).optional().describe("Items are test options (default: all of them)"),
    questionId: id().optional().describe("Items are the options of this multiple-choice question instead"),
    questionOptionIds: z.array(id()).min(2).max(100).optional().describe("A subset of the question's options"),
    reachDepth: z.number().int().min(1).max(10).optional().describe("Items a respondent accepts to count as reached (default 1)"),
    maxCombinationSize: z.number().int().min(1).max(20).optional().describe("Largest combination the TURF search considers (default 3)"),
  })
  .openapi("MarketReachBody");

export const ReachSettings = z
  .object({
    id: z.number().int(),
    projectId: z.number().int(),
    reachDepth: z.number().int(),
    maxCombinationSize: z.number().int(),
    itemSource: z.enum(["testOptions", "question"]),
    questionId: z.number().int().nullable(),
    projectQuestionId: z.number().int().nullable().describe("The market reach question (standard question 25) for test-option items"),
    items: z.array(
      z.object({
        id: z.number().int(),
        testOptionId: z.number().int().nullable(),
        questionOptionId: z.number().int().nullable(),
        answerOptionId: z.number().int().nullable().describe("The market reach question's option standing for the test option"),
        label: z.string(),
        sortOrder: z.number().int(),
      }),
    ),
  })
  .openapi("MarketReach");

export const CreateObjective = z.strictObject({ projectId: id(), summary: z.string().trim().min(1).max(2000) }).openapi("CreateProjectObjective");

export const UploadUrlQuery = z.object({
  fileName: z
    .string()
    .min(1)
    .max(255)
    .openapi({ param: { name: "fileName", in: "query" } }),
  fileType: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "fileType", in: "query" }, description: `One of ${ALLOWED_FILE_TYPES.join(", ")}` }),
  fileSize: z
    .string()
    .regex(/^\d{1,12}$/)
    .optional()
    .openapi({ param: { name: "fileSize", in: "query" }, description: "Bytes; checked against the type's limit (S3 then signs it)" }),
});

export const UploadUrl = z
  .object({
    url: z.string().describe("PUT the file's bytes here before expiresAt"),
    method: z.literal("PUT"),
    headers: z.record(z.string(), z.string()).describe("Send these headers exactly (the content type is signed)"),
    key: z.string().describe("Store it on the test option (file) or question (s3File) with fileType"),
    fileName: z.string(),
    fileType: z.string(),
    maxBytes: z.number().int(),
    expiresAt: z.string(),
  })
  .openapi("FileUploadUrl");

export const ProjectFile = z
  .object({
    source: z.enum(["testOption", "question"]),
    testOptionId: z.number().int().nullable(),
    questionId: z.number().int().nullable(),
    key: z.string(),
    fileType: z.string().nullable(),
    fileName: z.string().nullable(),
    signedUrl: z.string(),
    expiresAt: z.string(),
  })
  .openapi("ProjectFileUrl");

export const Uploaded = z.object({ key: z.string(), fileType: z.string(), size: z.number().int() }).openapi("UploadedFile");
