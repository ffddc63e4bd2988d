// The emails the product sends, each as plain text and HTML from one structured message. Every
// value a template receives is text: HTML escaping happens once, in render(), so no template can
// forget it and no name a user typed ("<b>Acme</b>") becomes markup.
import type { Email } from "./mailer.ts";

export interface Message {
  template: string;
  to: string;
  subject: string;
  /** Paragraphs of plain text. */
  paragraphs: string[];
  /** The one thing to do: a button in HTML, a line with the URL in text. */
  action?: { label: string; url: string };
  /** Small print under the action (why you got this, when the link expires). */
  note?: string;
  /** Values that grant access (tokens): redacted from the outbox when SMTP delivers the email. */
  secrets?: string[];
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

export function render(m: Message): Email {
  const text = [...m.paragraphs, ...(m.action ? [`${m.action.label}: ${m.action.url}`] : []), ...(m.note ? [m.note] : []), "— Ideally"].join("\n\n");
  const p = (s: string) => `<p style="margin:0 0 16px">${escapeHtml(s)}</p>`;
  const button = m.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(m.action.url)}" style="background:#4f46e5;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(m.action.label)}</a></p>` +
      `<p style="margin:0 0 16px;font-size:12px;color:#555">Or open this link: <a href="${escapeHtml(m.action.url)}">${escapeHtml(m.action.url)}</a></p>`
    : "";
  const html = [
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(m.subject)}</title></head>`,
    `<body style="font-family:system-ui,sans-serif;color:#111;max-width:560px;margin:0 auto;padding:24px">`,
    ...m.paragraphs.map(p),
    button,
    m.note ? `<p style="margin:0 0 16px;font-size:12px;color:#555">${escapeHtml(m.note)}</p>` : "",
    `<p style="margin:24px 0 0;color:#555">— Ideally</p>`,
    `</body></html>`,
  ].join("");
  return {
    to: m.to,
    subject: m.subject,
    text,
    html,
    template: m.template,
    links: m.action ? [m.action.url] : [],
    secrets: m.secrets ?? [],
  };
}

/** `https://app/auth/reset-password?token=...`: a page of the web app, with its query. */
export function link(publicUrl: string, path: string, query: Record<string, string> = {}): string {
  const qs = new URLSearchParams(query).toString();
  return `${publicUrl}${path}${qs ? `?${qs}` : ""}`;
}

const who = (p: { firstName?: string | null; lastName?: string | null; email: string }) => [p.firstName, p.lastName].filter(Boolean).join(" ") || p.email;

export function teamInvite(a: {
  to: string;
  inviter: { firstName?: string | null; lastName?: string | null; email: string };
  clientName: string;
  url: string;
  token: string;
  expiresDays: number;
}): Email {
  return render({
    template: "teamInvite",
    to: a.to,
    subject: `You're invited to join ${a.clientName} on Ideally`,
    paragraphs: [
      `${who(a.inviter)} has invited you to join ${a.clientName} on Ideally, where research teams test ideas, messages and new products with real consumers.`,
      "Accept the invitation to set your password and sign in.",
    ],
    action: { label: "Accept the invitation", url: a.url },
    note: `This invitation expires in ${a.expiresDays} days. If you weren't expecting it, you can ignore this email.`,
    secrets: [a.token],
  });
}

export function teamInviteExisting(a: { to: string; inviter: { firstName?: string | null; lastName?: string | null; email: string }; clientName: string; url: string }): Email {
  return render({
    template: "teamInviteExisting",
    to: a.to,
    subject: `You're invited to join ${a.clientName} on Ideally`,
    paragraphs: [`${who(a.inviter)} has invited you to join ${a.clientName} on Ideally.`, "Sign in with your existing account to accept or ignore the invitation."],
    action: { label: "Sign in", url: a.url },
    note: "Nothing changes until you accept. The invitation expires in 7 days.",
  });
}

export function passwordReset(a: { to: string; url: string; token: string; expiresMinutes: number }): Email {
  return render({
    template: "passwordReset",
    to: a.to,
    subject: "Reset your Ideally password",
    paragraphs: ["Someone (hopefully you) asked to reset the password of your Ideally account.", "Choose a new password with the link below."],
    action: { label: "Reset your password", url: a.url },
    note: `The link works once and expires in ${a.expiresMinutes} minutes. If you didn't ask for it, ignore this email: your password stays as it is.`,
    secrets: [a.token],
  });
}

export function signInFailures(a: { to: string; failures: number; minutes: number; url: string }): Email {
  return render({
    template: "signInFailures",
    to: a.to,
    subject: "Failed sign-ins to your Ideally account",
    paragraphs: [
      `Someone entered a wrong password for your Ideally account ${a.failures} times in the last ${a.minutes} minutes.`,
      "If it was you, nothing needs doing. If not, your account is still safe and open to you: sign-ins from those addresses are being slowed down. Choosing a new, unique password makes guessing it hopeless.",
    ],
    action: { label: "Choose a new password", url: a.url },
  });
}

export function registrationVerify(a: { to: string; projectName: string | null; clientName: string; url: string; token: string; expiresHours: number }): Email {
  const what = a.projectName ? `the project "${a.projectName}"` : "a project";
  return render({
    template: "registrationVerify",
    to: a.to,
    subject: "Confirm your email to open the shared project on Ideally",
    paragraphs: [`${a.clientName} shared ${what} with you on Ideally.`, "Confirm this is your email address to create your account and open it."],
    action: { label: "Confirm and create your account", url: a.url },
    note: `The link works once and expires in ${a.expiresHours} hours. If you didn't ask for it, ignore this email.`,
    secrets: [a.token],
  });
}

export function registrationExistingAccount(a: { to: string; projectName: string | null; clientName: string; url: string }): Email {
  const what = a.projectName ? `the project "${a.projectName}"` : "a project";
  return render({
    template: "registrationExistingAccount",
    to: a.to,
    subject: "Open the shared project on Ideally",
    paragraphs: [`${a.clientName} shared ${what} with you on Ideally.`, "You already have an Ideally account with this email: sign in to open it."],
    action: { label: "Sign in and open the project", url: a.url },
  });
}

/** Projects Share, to a person with an account: the project is readable to them now. */
export function projectShared(a: {
  to: string;
  sharer: { firstName?: string | null; lastName?: string | null; email: string };
  clientName: string;
  projectName: string;
  message?: string;
  url: string;
}): Email {
  return render({
    template: "projectShared",
    to: a.to,
    subject: `${who(a.sharer)} shared "${a.projectName}" with you on Ideally`,
    paragraphs: [`${who(a.sharer)} of ${a.clientName} shared the project "${a.projectName}" with you on Ideally.`, ...(a.message ? [`Their message: ${a.message}`] : [])],
    action: { label: "Open the project", url: a.url },
  });
}

/** Projects Share, to an email without an account: the share link, through which they register. */
export function projectShareInvite(a: {
  to: string;
  sharer: { firstName?: string | null; lastName?: string | null; email: string };
  clientName: string;
  projectName: string;
  message?: string;
  url: string;
  expiresDays: number;
}): Email {
  return render({
    template: "projectShareInvite",
    to: a.to,
    subject: `${who(a.sharer)} shared "${a.projectName}" with you on Ideally`,
    paragraphs: [
      `${who(a.sharer)} of ${a.clientName} shared the project "${a.projectName}" with you on Ideally, where research teams test ideas, messages and new products with real consumers.`,
      ...(a.message ? [`Their message: ${a.message}`] : []),
      "Open the link to create your account with this email address and see the project.",
    ],
    action: { label: "Open the shared project", url: a.url },
    note: `The link expires in ${a.expiresDays} days and works only for ${a.to}.`,
  });
}
