// The project file of `projects create --from`: YAML (or JSON, which is YAML too), checked against
// FILE_SCHEMA below and then, call by call, against the contract's own request schemas
// (contracts/openapi.json), so a mistake is reported at its line before anything is created.
// docs/cli.md documents the format.
import { existsSync, statSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { isMap, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import openapi from "@ideally/contracts/openapi.json" with { type: "json" };
import type { Schemas } from "@ideally/contracts";
import { usageError } from "../../errors.ts";
import { checkSchema, type JsonSchema, type SchemaIssue } from "../../schema-check.ts";

/** SPEC 3's frameworks by a name one can type. */
export const FRAMEWORKS: Record<string, number> = {
  "idea-default": 1000,
  "price-sensitivity": 1010,
  "market-reach": 1020,
  "execution-ab": 1003,
  "message-comprehension": 2000,
  "message-ab": 2003,
  "ad-hoc": 3000,
  "usage-and-attitude": 3998,
  npd: 4000,
};
export const PROJECT_TYPES: Record<string, 1 | 2 | 3 | 4> = { Idea: 1, Message: 2, Question: 3, Npd: 4 };
export const QUESTION_TYPES: Record<string, 1 | 2 | 3 | 4> = { single: 1, multiple: 2, text: 3, dropdown: 4 };
/** What FileUploadUrl accepts, by file extension. */
export const FILE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".pdf": "application/pdf",
  ".mp4": "video/mp4",
};

const idOrName = {
  anyOf: [
    { type: "integer", minimum: 1 },
    { type: "string", minLength: 1 },
  ],
};
const file = { type: "string", minLength: 1, pattern: "\\.(png|jpe?g|webp|gif|pdf|mp4)$" };

/** The file's shape. Field-level limits beyond these are the contract's (checked next). */
export const FILE_SCHEMA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "type", "framework", "regions"],
  properties: {
    name: { type: "string", minLength: 1 },
    type: { enum: Object.keys(PROJECT_TYPES) },
    framework: idOrName,
    regions: { type: "array", minItems: 1, items: idOrName },
    sampleSize: { type: "integer" },
    category: idOrName,
    productType: { type: "string", minLength: 1 },
    branded: { type: "boolean" },
    brandName: { type: "string" },
    researchNote: { type: "string" },
    launchDate: { type: "string", format: "date" },
    splitCellQuota: { type: "boolean" },
    targets: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["option"],
        properties: { option: idOrName, quota: { type: "number" }, region: idOrName, onlyThese: { type: "boolean" } },
      },
    },
    crossedQuotas: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["region", "cell", "quota"],
        properties: { region: idOrName, cell: { type: "array", minItems: 2, maxItems: 2, items: idOrName }, quota: { type: "number" } },
      },
    },
    testOptions: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["text"],
        properties: { text: { type: "string" }, description: { type: "string" }, image: file },
      },
    },
    questions: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["text", "type"],
        properties: {
          text: { type: "string" },
          type: { enum: Object.keys(QUESTION_TYPES) },
          title: { type: "string" },
          randomize: { type: "boolean" },
          minChoices: { type: "integer" },
          maxChoices: { type: "integer" },
          image: file,
          options: {
            type: "array",
            items: {
              anyOf: [
                { type: "string", minLength: 1 },
                {
                  type: "object",
                  additionalProperties: false,
                  required: ["text"],
                  properties: { text: { type: "string" }, exclusive: { type: "boolean" }, other: { type: "boolean" }, notSure: { type: "boolean" } },
                },
              ],
            },
          },
        },
      },
    },
    priceSensitivity: {
      type: "object",
      additionalProperties: false,
      properties: {
        currency: { type: "string" },
        minPrice: { type: "number" },
        maxPrice: { type: "number" },
        purchaseIntent: { type: "boolean" },
        calibration: { type: "array", items: { type: "number" } },
      },
    },
    marketReach: {
      type: "object",
      additionalProperties: false,
      properties: { reachDepth: { type: "integer" }, maxCombinationSize: { type: "integer" } },
    },
    schedule: {
      type: "object",
      additionalProperties: false,
      properties: {
        startDate: { type: "string", format: "date" },
        frequencyWeeks: { type: "integer" },
        waves: { type: "integer" },
        pause: { type: "boolean" },
      },
    },
  },
};

type IdOrName = number | string;

/**
 * A project file as FILE_SCHEMA describes it, field for field (change the two together): what the
 * file's values are once checkSchema found no issue (fitsFileSchema).
 */
interface FileFields {
  name: string;
  type: string;
  framework: IdOrName;
  regions: IdOrName[];
  sampleSize?: number;
  category?: IdOrName;
  productType?: string;
  branded?: boolean;
  brandName?: string;
  researchNote?: string;
  launchDate?: string;
  splitCellQuota?: boolean;
  targets?: { option: IdOrName; quota?: number; region?: IdOrName }[];
  /** Crossed quota cells: a market, a pair of answers of two demographic questions, its share. */
  crossedQuotas?: { region: IdOrName; cell: IdOrName[]; quota: number }[];
  testOptions?: { text: string; description?: string; image?: string }[];
  questions?: {
    text: string;
    type: string;
    title?: string;
    randomize?: boolean;
    minChoices?: number;
    maxChoices?: number;
    image?: string;
    options?: (string | { text: string; exclusive?: boolean; other?: boolean; notSure?: boolean })[];
  }[];
  priceSensitivity?: { currency?: string; minPrice?: number; maxPrice?: number; purchaseIntent?: boolean; calibration?: number[] };
  marketReach?: { reachDepth?: number; maxCombinationSize?: number };
  schedule?: { startDate?: string; frequencyWeeks?: number; waves?: number; pause?: boolean };
}

/** The file's values are FileFields when FILE_SCHEMA found no issue in them. */
function fitsFileSchema(raw: unknown, issues: SchemaIssue[]): raw is FileFields {
  return issues.length === 0;
}

type Path = (string | number)[];
type Body<K extends keyof Schemas> = Schemas[K];

/** An image or document to upload, resolved against the file's folder. */
export interface Upload {
  path: string;
  fileName: string;
  fileType: string;
  size: number;
}

/** What the file asks for, as the API bodies (minus the ids only known while creating). */
export interface ProjectPlan {
  /** Region ids, names or codes still to resolve against Regions (resolve.ts). */
  regions: (number | string)[];
  /** A framework id, a name from FRAMEWORKS or a framework's title. */
  framework: number | string;
  /** A category id or name. */
  category?: number | string;
  /** An industry code or name. */
  productType?: string;
  project: Omit<Body<"CreateProject">, "regionIds" | "frameworkId" | "categoryId" | "productType">;
  /** option: a SystemQuestionOption id, or its answer label (optionally "Question: label"). */
  targets: { option: number | string; quota?: number; region?: number | string; onlyThese?: boolean }[];
  crossedQuotas: { region: number | string; cell: (number | string)[]; quota: number }[];
  testOptions: { body: Omit<Body<"TestOptionsCreate">, "projectId" | "file">; image?: Upload }[];
  questions: { body: Omit<Body<"CreateQuestion">, "projectId" | "s3File">; image?: Upload }[];
  priceSensitivity?: Omit<Body<"PriceSensitivitiesBody">, "testOptionIds">;
  marketReach?: Omit<Body<"MarketReachBody">, "testOptionIds">;
  schedule?: Body<"UpdateProjectScheduling">;
}

export class ProjectFile {
  private constructor(
    readonly path: string,
    private readonly doc: ReturnType<typeof parseDocument>,
    private readonly lines: LineCounter,
  ) {}

  static read(path: string, text: string): ProjectFile {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const f = new ProjectFile(path, doc, lines);
    const err = doc.errors[0];
    if (err) {
      const at = lines.linePos(err.pos[0]);
      throw usageError(`${path}:${at.line}:${at.col}: ${err.message.split("\n")[0]}`);
    }
    return f;
  }

  /**
   * "file:line:col" of the value at a path (or of its key: for an unknown field the key is the
   * mistake), else of its nearest parent that exists.
   */
  where(path: Path, at: "key" | "value" = "value"): string {
    for (let p = path; ; p = p.slice(0, -1)) {
      const node = (p.length === 0 ? this.doc.contents : this.doc.getIn(p, true)) as Node | null | undefined;
      const keyNode = p.length > 0 ? this.keyNode(p) : undefined;
      const range = (at === "key" || !node?.range ? (keyNode ?? node) : node)?.range;
      if (range) {
        const at = this.lines.linePos(range[0]);
        return `${this.path}:${at.line}:${at.col}`;
      }
      if (p.length === 0) return `${this.path}:1:1`;
    }
  }

  private keyNode(p: Path): Node | undefined {
    const parent = (p.length === 1 ? this.doc.contents : this.doc.getIn(p.slice(0, -1), true)) as Node | null;
    if (!parent || !isMap(parent)) return undefined;
    const pair = parent.items.find((it) => (it.key as { value?: unknown } | null)?.value === p[p.length - 1]);
    return (pair?.key as Node | undefined) ?? undefined;
  }

  fail(path: Path, message: string): never {
    const name = path.length ? `${path.join(".")}: ` : "";
    throw usageError(`${this.where(path, message.startsWith("unknown field") ? "key" : "value")}: ${name}${message}`);
  }

  value(): unknown {
    return this.doc.toJS();
  }

  isList(path: Path): boolean {
    return isSeq(this.doc.getIn(path, true));
  }
}

/**
 * Reads and checks a project file's shape and the contract's limits: every problem is a usage
 * error (exit 1) naming its line. Names (regions, framework, category, industry, target options)
 * are resolved against the API's reference data next (resolve.ts), with the same file positions.
 */
export function readProjectFile(path: string, text: string): { file: ProjectFile; plan: ProjectPlan } {
  const f = ProjectFile.read(path, text);
  const raw = f.value();
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) f.fail([], "the file must be a mapping of fields (name, type, framework, regions, ...)");
  const issues = checkSchema(FILE_SCHEMA, raw);
  if (!fitsFileSchema(raw, issues)) return f.fail(issues[0]!.path, issues[0]!.message);
  const y = raw;
  const dir = dirname(resolve(path));

  const upload = (at: Path, rel: string): Upload => {
    const full = resolve(dir, rel);
    if (!existsSync(full) || !statSync(full).isFile()) f.fail(at, `no file ${full}`);
    return { path: full, fileName: full.split("/").pop()!, fileType: FILE_TYPES[extname(full).toLowerCase()], size: statSync(full).size };
  };

  const plan: ProjectPlan = {
    regions: y.regions,
    framework: y.framework,
    ...(y.category !== undefined ? { category: y.category } : {}),
    ...(y.productType !== undefined ? { productType: y.productType } : {}),
    project: {
      projectName: y.name,
      projectTypeId: PROJECT_TYPES[y.type],
      ...(y.sampleSize !== undefined ? { sampleSize: y.sampleSize } : {}),
      ...(y.branded !== undefined ? { isBranded: y.branded } : {}),
      ...(y.brandName !== undefined ? { brandName: y.brandName } : {}),
      ...(y.researchNote !== undefined ? { researchNote: y.researchNote } : {}),
      ...(y.launchDate !== undefined ? { launchDate: y.launchDate } : {}),
      ...(y.splitCellQuota !== undefined ? { splitCellQuota: y.splitCellQuota } : {}),
    },
    targets: y.targets ?? [],
    crossedQuotas: y.crossedQuotas ?? [],
    testOptions: (y.testOptions ?? []).map((t, i) => ({
      body: { conceptText: t.text, ...(t.description !== undefined ? { conceptDescription: t.description } : {}), sortOrder: i + 1 },
      ...(t.image ? { image: upload(["testOptions", i, "image"], t.image) } : {}),
    })),
    questions: (y.questions ?? []).map((q, i) => ({
      body: {
        questionText: q.text,
        questionTypeId: QUESTION_TYPES[q.type],
        // Custom questions (SPEC 3 position 6).
        questionPositionId: 6,
        ...(q.title !== undefined ? { questionTitle: q.title } : {}),
        ...(q.randomize !== undefined ? { randomizeOptions: q.randomize } : {}),
        ...(q.minChoices !== undefined ? { minChoices: q.minChoices } : {}),
        ...(q.maxChoices !== undefined ? { maxChoices: q.maxChoices } : {}),
        ...(q.options
          ? {
              questionOptions: q.options.map((o) =>
                typeof o === "string"
                  ? { optionText: o }
                  : {
                      optionText: o.text,
                      ...(o.exclusive !== undefined ? { exclusive: o.exclusive } : {}),
                      ...(o.other !== undefined ? { isOther: o.other } : {}),
                      ...(o.notSure !== undefined ? { isNotSure: o.notSure } : {}),
                    },
              ),
            }
          : {}),
      },
      ...(q.image ? { image: upload(["questions", i, "image"], q.image) } : {}),
    })),
  };
  if (y.priceSensitivity) {
    const p = y.priceSensitivity;
    plan.priceSensitivity = {
      ...(p.currency !== undefined ? { currencyCode: p.currency } : {}),
      ...(p.minPrice !== undefined ? { minPrice: p.minPrice } : {}),
      ...(p.maxPrice !== undefined ? { maxPrice: p.maxPrice } : {}),
      ...(p.purchaseIntent !== undefined ? { purchaseIntent: p.purchaseIntent } : {}),
      ...(p.calibration !== undefined ? { purchaseIntentCalibration: p.calibration } : {}),
    };
  }
  if (y.marketReach) plan.marketReach = { ...y.marketReach };
  if (y.schedule) {
    const s = y.schedule;
    plan.schedule = {
      scheduleStartDate: s.startDate ?? null,
      scheduleFrequencyWeeks: s.frequencyWeeks ?? null,
      wavesRequired: s.waves !== undefined,
      ...(s.waves !== undefined ? { scheduleWavesRequired: s.waves } : {}),
      ...(s.pause !== undefined ? { schedulePause: s.pause } : {}),
    };
  }
  checkAgainstContract(f, plan);
  return { file: f, plan };
}

// Where each body field came from in the file, for errors the contract's schemas find.
const PROJECT_FIELDS: Record<string, string> = {
  projectName: "name",
  projectTypeId: "type",
  frameworkId: "framework",
  sampleSize: "sampleSize",
  categoryId: "category",
  productType: "productType",
  isBranded: "branded",
  brandName: "brandName",
  researchNote: "researchNote",
  launchDate: "launchDate",
  splitCellQuota: "splitCellQuota",
};
const OPTION_FIELDS: Record<string, string> = { conceptText: "text", conceptDescription: "description" };
const QUESTION_FIELDS: Record<string, string> = {
  questionText: "text",
  questionTitle: "title",
  questionTypeId: "type",
  minChoices: "minChoices",
  maxChoices: "maxChoices",
  randomizeOptions: "randomize",
  questionOptions: "options",
};
const PRICE_FIELDS: Record<string, string> = { currencyCode: "currency", minPrice: "minPrice", maxPrice: "maxPrice", purchaseIntent: "purchaseIntent", purchaseIntentCalibration: "calibration" };
const SCHEDULE_FIELDS: Record<string, string> = { scheduleStartDate: "startDate", scheduleFrequencyWeeks: "frequencyWeeks", scheduleWavesRequired: "waves", schedulePause: "pause" };

const components = openapi.components.schemas;
const resolveRef = (ref: string) => components[ref.replace("#/components/schemas/", "")];

/** Checks a body against the contract's schema; an issue is reported at the file's line. */
function checkBody(f: ProjectFile, schema: string, body: object, at: Path, fields: Record<string, string>): void {
  const issue = checkSchema(components[schema], body, resolveRef)[0];
  if (!issue) return;
  const [field, ...rest] = issue.path;
  const mapped = field === undefined ? at : [...at, fields[String(field)] ?? String(field), ...(field === "questionOptions" ? rest.slice(0, 1) : [])];
  f.fail(mapped, issue.message);
}

function checkAgainstContract(f: ProjectFile, plan: ProjectPlan): void {
  // Placeholder ids stand in for what exists only once the project does.
  checkBody(
    f,
    "CreateProject",
    {
      ...plan.project,
      regionIds: plan.regions.map((r) => (typeof r === "number" ? r : 1)),
      frameworkId: typeof plan.framework === "number" ? plan.framework : 1000,
      ...(plan.category !== undefined ? { categoryId: typeof plan.category === "number" ? plan.category : 1 } : {}),
      ...(plan.productType !== undefined ? { productType: plan.productType } : {}),
    },
    [],
    PROJECT_FIELDS,
  );
  plan.testOptions.forEach((t, i) => {
    checkBody(f, "TestOptionsCreate", { ...t.body, projectId: 1 }, ["testOptions", i], OPTION_FIELDS);
  });
  plan.questions.forEach((q, i) => {
    const needsOptions = q.body.questionTypeId !== 3;
    if (needsOptions && !(q.body.questionOptions?.length ?? 0)) f.fail(["questions", i, "type"], "a single, multiple or dropdown question needs options");
    if (!needsOptions && q.body.questionOptions?.length) f.fail(["questions", i, "options"], "a text question has no options");
    checkBody(f, "CreateQuestion", { ...q.body, projectId: 1 }, ["questions", i], QUESTION_FIELDS);
  });
  const ids = plan.testOptions.map((_, i) => i + 1);
  if (plan.priceSensitivity) {
    if (ids.length === 0) f.fail(["priceSensitivity"], "price sensitivity needs at least one test option");
    checkBody(f, "PriceSensitivitiesBody", { ...plan.priceSensitivity, testOptionIds: ids }, ["priceSensitivity"], PRICE_FIELDS);
  }
  if (plan.marketReach) {
    if (ids.length < 2) f.fail(["marketReach"], "market reach needs at least two test options");
    checkBody(f, "MarketReachBody", { ...plan.marketReach, testOptionIds: ids }, ["marketReach"], {});
  }
  if (plan.schedule) checkBody(f, "UpdateProjectScheduling", plan.schedule, ["schedule"], SCHEDULE_FIELDS);
  plan.targets.forEach((t, i) => {
    checkBody(f, "ChangeTargets", { targets: [{ systemQuestionOptionId: typeof t.option === "number" ? t.option : 1, ...(t.quota !== undefined ? { quotaPercent: t.quota } : {}) }] }, ["targets", i], {
      targets: "option",
    });
  });
}
