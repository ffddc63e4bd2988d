// Configuration read once from the environment, validated, with one clear message per bad variable.

export interface Config {
  port: number;
  databaseUrl: string | undefined;
  embeddedPort: number;
  dataDir: string;
  production: boolean;
  logRequests: boolean;
  /** Where users reach the product (links in emails, SAML and OIDC callbacks). */
  publicUrl: string;
  /** Signs access tokens; when unset, a secret made once per database is used. */
  authSecret: string | undefined;
  /** LinkedIn sign-in: configured (LINKEDIN_CLIENT_ID) and not switched off (LINKEDIN_DISABLED). */
  linkedInEnabled: boolean;
}

export function readConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number): number => {
    const v = env[name];
    if (v === undefined || v === "") return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0 || n > 65535) problems.push(`${name} must be a port number, got '${v}'`);
    return n;
  };
  const cfg: Config = {
    port: int("PORT", 3000),
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPort: int("EMBEDDED_PG_PORT", 54329),
    dataDir: env.DATA_DIR || ".data",
    production: env.NODE_ENV === "production",
    logRequests: env.LOG_REQUESTS !== "0",
    publicUrl: (env.PUBLIC_URL || "").replace(/\/+$/, ""),
    authSecret: env.AUTH_SECRET || undefined,
    linkedInEnabled: !!env.LINKEDIN_CLIENT_ID && env.LINKEDIN_DISABLED !== "1",
  };
  if (!cfg.publicUrl) cfg.publicUrl = `http://localhost:${cfg.port}`;
  else if (!/^https?:\/\/[^/]+/.test(cfg.publicUrl)) problems.push("PUBLIC_URL must be an http(s) URL");
  if (cfg.authSecret !== undefined && cfg.authSecret.length < 32) problems.push("AUTH_SECRET must be at least 32 characters");
  if (cfg.databaseUrl && !/^postgres(ql)?:\/\//.test(cfg.databaseUrl)) {
    problems.push("DATABASE_URL must start with postgres:// or postgresql://");
  }
  if (problems.length) throw new Error("Invalid configuration:\n  " + problems.join("\n  "));
  return cfg;
}
