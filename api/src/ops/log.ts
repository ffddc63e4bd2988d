// Structured logs: one JSON object per line ({ time, level, msg, ...fields }), with the trace id
// that error responses carry (x-error-trace-id), so a user's report finds its log line. No stack
// traces (the message and the error's name say what failed; the trace id says where to look), and
// every line is passed through redact(): configured secrets and URL passwords never reach a log.

export type Level = "info" | "warn" | "error";

const SECRET_VARS = ["AUTH_SECRET", "HMAC_SECRET", "S3_SECRET_ACCESS_KEY", "LINKEDIN_CLIENT_SECRET", "HUBSPOT_TOKEN", "SAMPLIFY_PASSWORD", "AI_API_KEY", "SAML_SP_PRIVATE_KEY"];

function secretValues(env: Record<string, string | undefined>): string[] {
  const out = SECRET_VARS.map((k) => env[k]).filter((v): v is string => !!v && v.length >= 6);
  // Passwords inside configured URLs (DATABASE_URL, SMTP_URL).
  for (const k of ["DATABASE_URL", "SMTP_URL"]) {
    const v = env[k];
    if (!v) continue;
    try {
      const pw = decodeURIComponent(new URL(v).password);
      if (pw.length >= 4) out.push(pw);
    } catch {
      /* not a URL: config validation reports it */
    }
  }
  return out;
}

/** The text with configured secrets and any URL's password replaced by ***. */
export function redact(text: string, env: Record<string, string | undefined> = typeof process === "undefined" ? {} : process.env): string {
  let out = text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]+:)([^@\s]+)@/gi, "$1***@");
  for (const s of secretValues(env)) out = out.split(s).join("***");
  return out.replace(/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, "Bearer ***");
}

/** One JSON log line. */
export function logLine(level: Level, msg: string, fields: Record<string, unknown> = {}): string {
  return redact(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
}

/** Writes a JSON log line: errors to stderr, the rest to stdout. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const line = logLine(level, msg, fields);
  if (level === "error") console.error(line);
  else console.log(line);
}

/** What is safe to log of an error: its name, code and message (redacted by logLine), no stack. */
export function errorFields(err: unknown): Record<string, unknown> {
  const e = err as { name?: unknown; code?: unknown; message?: unknown };
  return {
    error: typeof e?.name === "string" ? e.name : typeof err,
    ...(typeof e?.code === "string" ? { code: e.code } : {}),
    message: typeof e?.message === "string" ? e.message.slice(0, 500) : String(err).slice(0, 500),
  };
}
