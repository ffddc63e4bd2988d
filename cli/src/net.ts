// Every request the CLI sends goes through `netFetch`: a request timeout (default 30 s, `--timeout
// S` or IDEALLY_TIMEOUT) that ends a call the API does not answer with one line and its own exit
// code (7), and network failures said in the product's words (connection refused, no such host,
// an untrusted certificate), never the runtime's own ("Is the computer able to access the url?").
// The timeout bounds the wait for the answer's headers and then each pause between chunks of its
// body, so a long download that keeps arriving is never cut, and a server that stops mid-answer is.
import { CliError, EXIT_NO_ANSWER, usageError } from "./errors.ts";

/** Seconds a request may wait for the API when neither --timeout nor IDEALLY_TIMEOUT says. */
export const DEFAULT_TIMEOUT_S = 30;
/** The largest --timeout: a day (setTimeout's own limit is about 24.8 days). */
export const MAX_TIMEOUT_S = 86_400;

let timeoutS = DEFAULT_TIMEOUT_S;

/** Seconds as --timeout takes them: a number above 0 and at most a day (decimals allowed). */
export function parseTimeout(v: string, name: string): number {
  if (!/^\d{1,6}(\.\d{1,3})?$/.test(v) || Number(v) <= 0 || Number(v) > MAX_TIMEOUT_S) throw usageError(`${name}: expected seconds above 0 and at most ${MAX_TIMEOUT_S}, got '${v}'`);
  return Number(v);
}

/** Sets the request timeout: the option when given, else IDEALLY_TIMEOUT, else the default. Checked before any request. */
export function setRequestTimeout(option: string | undefined, env: string | undefined = process.env.IDEALLY_TIMEOUT): void {
  timeoutS = option !== undefined ? parseTimeout(option, "--timeout") : env !== undefined && env !== "" ? parseTimeout(env, "IDEALLY_TIMEOUT") : DEFAULT_TIMEOUT_S;
}

export const requestTimeoutSeconds = () => timeoutS;

/** An API base URL as --api, IDEALLY_API_URL or the config give it: http(s), a host, no query; else a usage error. */
export function checkApiUrl(v: string, from: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw usageError(`${from}: expected the API's address like https://ideally.example.com, got '${v}'`);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname || u.search || u.hash || u.username || u.password)
    throw usageError(`${from}: expected the API's address like https://ideally.example.com, got '${v}'`);
  return v.replace(/\/+$/, "");
}

const TLS = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/;

/** A network failure in one line naming the server; the runtime's wording is never shown. */
export function networkError(base: string, e: unknown): CliError {
  if (e instanceof CliError) return e;
  const code = String((e as { code?: unknown } | null)?.code ?? "");
  const at = `cannot reach the API at ${base}`;
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") return new CliError(`${at}: the connection was refused (is the server running, and is the address right?)`, 2);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "DNSException") return new CliError(`${at}: no such host`, 2);
  if (code === "ECONNRESET" || code === "ConnectionClosed" || code === "EPIPE") return new CliError(`${at}: the connection was closed before it answered`, 2);
  if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return new CliError(`${at}: connecting timed out`, 2);
  if (code === "ERR_INVALID_URL") return usageError(`the API's address '${base}' is not a valid URL`);
  if (TLS.test(code)) return new CliError(`${at}: its TLS certificate is not trusted (${code})`, 2);
  return new CliError(`${at}${code ? ` (${code})` : ""}`, 2);
}

const noAnswer = (base: string) => new CliError(`the API at ${base} did not answer within ${timeoutS} s (--timeout SECONDS or IDEALLY_TIMEOUT to wait longer)`, EXIT_NO_ANSWER);

/**
 * fetch bounded by the request timeout, its failures as CliErrors. openapi-fetch hands it a
 * Request; a caller's own signal (a watch that stops) still aborts it.
 */
export function netFetch(base: string): (input: Request | string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const ac = new AbortController();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        ac.abort();
      }, timeoutS * 1000);
    };
    const outer = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (outer) outer.addEventListener("abort", () => ac.abort(outer.reason), { once: true });
    arm();
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal: ac.signal });
    } catch (e) {
      clearTimeout(timer);
      if (timedOut) throw noAnswer(base);
      if (outer?.aborted) throw e;
      throw networkError(base, e);
    }
    clearTimeout(timer);
    if (!res.body || [101, 204, 205, 304].includes(res.status)) return res;
    // The body: each chunk within the timeout of the one before. Pulled only when read (high-water
    // mark 0): a body nobody reads (the 401 a refresh retries) arms no timer, which would hold the
    // process for the whole timeout after its work is done.
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          arm();
          try {
            const { done, value } = await reader.read();
            if (done) {
              clearTimeout(timer);
              controller.close();
            } else controller.enqueue(value);
          } catch (e) {
            clearTimeout(timer);
            controller.error(timedOut ? noAnswer(base) : outer?.aborted ? e : networkError(base, e));
          }
        },
        cancel(reason) {
          clearTimeout(timer);
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
