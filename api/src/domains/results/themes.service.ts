// Themes and sentiment of a project's open answers (the local coding of analytics/verbatims.ts):
// per open question, the generated themes are replaced, each answer linked to its themes, and every
// answer's sentiment set. Run when a survey run is processed and by the ReGenerateThemes command.
import type { Db, Tx } from "../../db/client.ts";
import type { SentimentLabel, Theme } from "@ideally/analytics/verbatims";
import { QA_STATUSES, textQa, type QaStatus } from "@ideally/analytics/text-qa";

/** A project's open answers by question, as the theme coders read them. */
export async function openAnswers(sql: Tx | Db, projectId: number) {
  const rows = await sql<{ id: number; clientId: number; pq: number; text: string; question: string }[]>`
    select t.id::int, t.client_id as "clientId", t.project_question_id as pq, coalesce(t.translated_text, t.response_text) as text, q.question_text as question
    from text_responses t join questions q on q.id = t.question_id where t.project_id = ${projectId} order by t.project_question_id, t.id`;
  const byQ = new Map<number, (typeof rows)[number][]>();
  for (const r of rows) (byQ.get(r.pq) ?? byQ.set(r.pq, []).get(r.pq)!).push(r);
  return { rows, byQ };
}

/**
 * Codes a project's open answers: sentiment per answer (`sentiments` by answer id, else AFINN-165),
 * and per question the themes `found` gives (by default the local key-phrase clustering; the AI
 * domain passes a model's themes and sentiments).
 */
export async function codeThemes(
  tx: Tx,
  projectId: number,
  found: Map<number, Theme[]> | null = null,
  sentiments: Map<number, { label: SentimentLabel; score: number }> | null = null,
): Promise<{ questions: number; themes: number; answers: number }> {
  // The coder (and compromise, its part-of-speech tagger: over 400 modules, about 0.6 s of CPU to
  // load) is imported when answers are coded, not by every process at start-up.
  const { sentimentOf, themesOf } = await import("@ideally/analytics/verbatims");
  const { rows, byQ } = await openAnswers(tx, projectId);
  let themes = 0;
  await tx`delete from themes where project_id = ${projectId} and is_ai_generated`;
  for (const [pq, answers] of byQ) {
    const s = answers.map((a) => sentiments?.get(a.id) ?? sentimentOf(a.text));
    await tx`
      update text_responses t set sentiment = x.label, sentiment_score = x.score, updated_at = now()
      from unnest(${answers.map((a) => a.id)}::bigint[], ${s.map((x) => x.label)}::text[], ${s.map((x) => x.score)}::float8[]) as x(id, label, score)
      where t.id = x.id`;
    for (const [i, t] of (found?.get(pq) ?? themesOf(answers.map((a) => a.text))).entries()) {
      const [th] = await tx<{ id: number }[]>`
        insert into themes (client_id, project_id, project_question_id, name, description, sentiment, sort_order, is_ai_generated)
        values (${answers[0]!.clientId}, ${projectId}, ${pq}, ${t.name.slice(0, 200)}, ${`Answers mentioning “${t.phrase}”`}, ${t.sentiment}, ${i + 1}, true)
        returning id`;
      await tx`
        insert into text_responses_themes (client_id, project_id, text_response_id, theme_id, confidence)
        select ${answers[0]!.clientId}, ${projectId}, x, ${th!.id}, 1 from unnest(${t.members.map((m) => answers[m]!.id)}::bigint[]) as x`;
      themes++;
    }
  }
  return { questions: byQ.size, themes, answers: rows.length };
}

/** The quality check of a project's open answers (analytics/text-qa.ts): each answer's status and reason, set again. */
export async function checkTextResponses(tx: Tx, projectId: number): Promise<{ answers: number; byStatus: Record<QaStatus, number> }> {
  const rows = await tx<{ id: number; respondent: number; text: string }[]>`
    select id::int, survey_session_id as respondent, coalesce(translated_text, response_text) as text from text_responses where project_id = ${projectId} order by id`;
  const qa = textQa(rows);
  const ids = rows.map((r) => r.id);
  await tx`
    update text_responses t set qa_status = x.status, qa_reason = x.reason, qa_checked_at = now(), updated_at = now()
    from unnest(${ids}::bigint[], ${ids.map((id) => qa.get(id)!.status)}::text[], ${ids.map((id) => qa.get(id)!.reason)}::text[]) as x(id, status, reason)
    where t.id = x.id`;
  const byStatus = Object.fromEntries(QA_STATUSES.map((s) => [s, 0])) as Record<QaStatus, number>;
  for (const r of qa.values()) byStatus[r.status]++;
  return { answers: rows.length, byStatus };
}
