// `ideally results verbatims ID --question Q`: one open question's answers with sentiment and themes;
// without --question, the open questions to choose from (the same list in text and --json).
import { countArg, idArg } from "../../args.ts";
import { usageError } from "../../errors.ts";
import { checkFilters, filterParam, filtersFor } from "../../filters.ts";
import { bold, dim, printJson, table } from "../../output.ts";
import { fieldedProject } from "../../fielded.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

export interface VerbatimOptions extends GlobalOptions {
  question?: string;
  filter?: string[];
  segment?: string;
  search?: string;
  sentiment?: string;
  option?: string;
  page?: string;
  pageSize?: string;
}

export async function runVerbatims(id: string, o: VerbatimOptions): Promise<void> {
  const key = idArg(id);
  // Every value checked before the first request (the contract: page from 1, pageSize at most 200).
  const question = o.question === undefined ? undefined : idArg(o.question, "project question id");
  if (o.sentiment !== undefined && !["Positive", "Neutral", "Negative", "Mixed"].includes(o.sentiment))
    throw usageError(`--sentiment: expected Positive, Neutral, Negative or Mixed, got '${o.sentiment}'`);
  const testOption = o.option === undefined ? undefined : idArg(o.option, "test option id");
  const pageNo = o.page === undefined ? undefined : countArg(o.page, "--page", 999_999_999);
  const pageSize = o.pageSize === undefined ? undefined : countArg(o.pageSize, "--page-size", 200);
  checkFilters(o);
  const api = signedIn(o);
  await fieldedProject(api, key, "answers yet", "results follow fielding");
  if (question === undefined) {
    // No question named: list the open ones to choose from.
    const qs = ok(
      await api.client.GET("/api/v1/ProjectQuestions", {
        params: { query: { $filter: `projectId eq ${key} and question/questionTypeId eq 3`, $expand: "question($select=questionText)", $orderby: "questionPositionId,sortOrder" } },
      }),
      "listing the open questions",
    ).value;
    const list = qs.map((q) => ({ projectQuestionId: q!.id!, questionText: q!.question?.questionText ?? "" }));
    // Text and --json list the same questions (exit 0); the next step goes to stderr.
    if (o.json) printJson(list);
    else if (list.length)
      process.stdout.write(
        `${table(
          ["question", "open question"],
          list.map((q) => [String(q.projectQuestionId), q.questionText]),
        )}\n`,
      );
    else process.stdout.write(`Project ${id} has no open questions\n`);
    if (list.length) process.stderr.write(`answers: ideally results verbatims ${id} --question ${list[0].projectQuestionId}\n`);
    return;
  }
  const filters = await filtersFor(api, o);
  const page = ok(
    await api.client.GET("/api/v1/TextResponses/Verbatim", {
      params: {
        query: {
          projectId: key,
          projectQuestionId: question,
          ...filterParam(filters),
          ...(o.search ? { search: o.search } : {}),
          ...(o.sentiment ? { sentiment: o.sentiment as "Positive" } : {}),
          ...(testOption ? { testOptionId: testOption } : {}),
          ...(pageNo ? { page: pageNo } : {}),
          ...(pageSize ? { pageSize } : {}),
        },
      },
    }),
    "reading the answers",
  );
  if (o.json) return printJson(page);
  process.stdout.write(`${bold(`Answers to question ${question}`)} ${dim(`(page ${page.page}, ${page.value.length} shown)`)}\n`);
  process.stdout.write(
    `${table(
      ["sentiment", "themes", "answer"],
      page.value.map((v) => [v.sentiment ?? "", v.themes.map((t) => t.name).join(", "), v.responseText.replace(/\s+/g, " ")]),
    )}\n`,
  );
}
