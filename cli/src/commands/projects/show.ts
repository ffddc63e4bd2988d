// `ideally projects show ID`: a project's set-up (regions, test options, custom questions) and cost.
import { idArg } from "../../args.ts";
import { dim, printJson, summary, table } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "@ideally/contracts/labels";

export async function runShow(id: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const key = idArg(id);
  const [p, options, questions, regions] = await Promise.all([
    api.client.GET("/api/v1/Projects({key})", { params: { path: { key } } }).then((r) => ok(r, `reading project ${id}`)),
    api.client
      .GET("/api/v1/TestOptions", { params: { query: { $filter: `projectId eq ${key}`, $orderby: "sortOrder,id", $select: "id,conceptText,conceptDescription,file" } } })
      .then((r) => ok(r, "reading the test options").value),
    api.client
      .GET("/api/v1/ProjectQuestions", {
        params: { query: { $filter: `projectId eq ${key} and questionPositionId eq 6`, $orderby: "sortOrder,id", $expand: "question($select=id,questionText,questionTypeId)" } },
      })
      .then((r) => ok(r, "reading the questions").value),
    api.client.GET("/api/v1/ProjectsRegions", { params: { query: { $filter: `projectId eq ${key}`, $expand: "region($select=regionName)" } } }).then((r) => ok(r, "reading the regions").value),
  ]);
  const out = { ...p, regions, testOptions: options, customQuestions: questions };
  if (o.json) return printJson(out);
  process.stdout.write(
    `${summary([
      ["id", String(p.id)],
      ["name", p.projectName ?? ""],
      ["type", `${p.projectType} (framework ${p.frameworkId ?? "–"})`],
      ["status", `${p.statusCode} ${statusName(p.statusCode)}`],
      ["regions", regions.map((r) => `${r!.region?.regionName ?? r!.regionId} (${r!.sampleSize ?? "–"}${r!.isCustomerPanel ? ", customer panel" : ""})`).join(", ")],
      ["created", p.createdAt ?? ""],
    ])}\n\n${table(
      ["option", "concept", "file"],
      options.map((t) => [String(t!.id), t!.conceptText ?? "", t!.file ? dim("yes") : ""]),
    )}\n`,
  );
  if (questions.length)
    process.stdout.write(
      `\n${table(
        ["question", "custom question"],
        questions.map((q) => [String(q!.id), q!.question?.questionText ?? ""]),
      )}\n`,
    );
}
