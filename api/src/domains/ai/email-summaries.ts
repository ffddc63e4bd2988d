// ProjectEmailSummaries: a weekly results email per watched project (the `ai.email-summaries` job,
// every Monday 08:00 UTC). For each project with results (status 800 or above) and at least one
// active watcher, the summary is written from the computed results by the provider (prompt type
// EmailSummary, the same grounding as every summary; the email shows the figures without their
// [Fn] references) and sent to the watchers through the email layer; the row keeps the subject,
// body, recipients and whether it was sent. One row per project and week: a second run sends
// nothing twice.
import type { Db } from "../../db/client.ts";
import { defineJob, type JobContext } from "../../jobs/workers.ts";
import type { Queue, JobEnvelope } from "../../jobs/queue.ts";
import { outboxMailer, type Mailer } from "../../email/mailer.ts";
import { link, render } from "../../email/templates.ts";
import { SERVICES_USER_ID, systemCtx } from "../lifecycle/lifecycle.service.ts";
import { FigureBook, projectContext, summaryFacts } from "./facts.ts";
import { promptFor, SUMMARY_SYSTEM, SUMMARY_TEMPLATE, summaryMessages } from "./messages.ts";
import { runExchange } from "./provider.ts";
import { currentProvider } from "./summaries.service.ts";

export const EMAIL_SUMMARIES_CRON = "0 8 * * 1";

let jobMailer: Mailer | null = null;
/** The server's mailer (SMTP or the outbox); unset, the outbox. */
export function useMailer(m: Mailer | null): void {
  jobMailer = m;
}

export interface EmailSummariesInput {
  /** The week's Monday (YYYY-MM-DD); default this week's. */
  weekOf?: string;
  /** Only this project (tests, a resend). */
  projectId?: number;
}

/** The Monday of the week of `d` (UTC). */
export function mondayOf(d: Date): string {
  const x = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  x.setUTCDate(x.getUTCDate() - ((x.getUTCDay() + 6) % 7));
  return x.toISOString().slice(0, 10);
}

/** The summary as an email's paragraphs: no [Fn] references, no markdown marks. */
export function emailParagraphs(text: string): string[] {
  return text
    .replace(/ \[F\d+\]/g, "")
    .split(/\n{2,}/)
    .map((p) =>
      p
        .replace(/^## /, "")
        .replace(/^_(.*)_$/s, "$1")
        .replace(/\*\*/g, "")
        .trim(),
    )
    .filter(Boolean);
}

export async function sendWeeklySummaries(db: Db, input: EmailSummariesInput, mailer: Mailer, progress: (pct: number, m?: string) => Promise<void> = async () => {}) {
  const weekOf = input.weekOf ?? mondayOf(new Date());
  const due = await db<{ projectId: number; clientId: number; projectName: string; recipients: string[] }[]>`
    select p.id as "projectId", p.client_id as "clientId", p.project_name as "projectName",
           array_agg(distinct u.email order by u.email) as recipients
    from projects p join project_watchers w on w.project_id = p.id join users u on u.id = w.user_id and u.disabled_at is null
    where p.deleted_at is null and p.status_code >= 800 ${input.projectId ? db`and p.id = ${input.projectId}` : db``}
      and not exists (select 1 from project_email_summaries s where s.project_id = p.id and s.week_of = ${weekOf}::date and s.status = 'Sent')
    group by p.id order by p.id`;
  const provider = await currentProvider();
  const prompt = await promptFor(db, "EmailSummary", { systemPrompt: SUMMARY_SYSTEM, template: SUMMARY_TEMPLATE });
  let sent = 0;
  let failed = 0;
  for (const [i, d] of due.entries()) {
    await progress((i / Math.max(1, due.length)) * 100, `${d.projectName}`);
    const subject = `Weekly results: ${d.projectName}`;
    const [row] = await db<{ id: number }[]>`
      insert into project_email_summaries (client_id, project_id, subject, body, status, recipients, prompt_version_id, week_of)
      values (${d.clientId}, ${d.projectId}, ${subject}, '', 'Draft', ${db.json(d.recipients)}, ${prompt.promptVersionId}, ${weekOf}::date)
      on conflict (project_id, week_of) where week_of is not null do update set status = 'Draft', error = null, recipients = excluded.recipients, updated_at = now()
      returning id`;
    try {
      const ctx = systemCtx();
      const pc = await projectContext(db, ctx, d.projectId);
      const facts = await summaryFacts(db, ctx, pc, new FigureBook(), { filters: {}, scope: null });
      const ex = await runExchange(provider, summaryMessages(prompt, facts), {}, { model: prompt.model, temperature: prompt.temperature });
      const paragraphs = emailParagraphs(ex.content);
      const url = link(mailer.publicUrl, `/${d.clientId}/results/${d.projectId}`);
      for (const to of d.recipients) {
        await mailer.send(
          render({
            template: "weekly-summary",
            to,
            subject,
            paragraphs,
            action: { label: "Open the results", url },
            note: "You get this email every Monday because you watch this project. Stop watching it to stop these emails.",
          }),
        );
      }
      await db`update project_email_summaries set body = ${paragraphs.join("\n\n")}, status = 'Sent', sent_at = now(), updated_at = now() where id = ${row!.id}`;
      sent++;
    } catch (e) {
      await db`update project_email_summaries set status = 'Failed', error = ${(e as Error).message.slice(0, 500)}, updated_at = now() where id = ${row!.id}`;
      failed++;
    }
  }
  return { weekOf, projects: due.length, sent, failed };
}

export const emailSummariesJob = defineJob<EmailSummariesInput>(
  "ai.email-summaries",
  (job: JobContext<EmailSummariesInput>) => sendWeeklySummaries(job.db, job.data, jobMailer ?? outboxMailer(job.db), job.progress),
  { retryLimit: 2, retryDelay: 60, expireInSeconds: 3600 },
);

export async function scheduleEmailSummaries(queue: Queue): Promise<void> {
  const envelope: JobEnvelope<EmailSummariesInput> = { input: {}, origin: { userId: SERVICES_USER_ID, clientId: null } };
  await queue.schedule(emailSummariesJob.name, EMAIL_SUMMARIES_CRON, envelope, { tz: "UTC" });
}
