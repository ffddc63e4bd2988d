// The typed API client used by the web app, the CLI and third parties. Types come from
// schema.d.ts, generated from the published OpenAPI document: nothing here is hand-typed.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths, components } from "./schema";

export type { paths, components };
export type Schemas = components["schemas"];
export type ApiClient = Client<paths>;

export interface ClientOptions {
  baseUrl: string;
  /** Returns the current bearer token, if signed in. */
  getToken?: () => string | null | undefined | Promise<string | null | undefined>;
  /** The tenant: sent as the clientId header. */
  getClientId?: () => number | string | null | undefined;
  /** `client` (default) or `descendants` (org and enterprise pages). */
  getRequestScope?: () => "client" | "descendants" | undefined;
  /** openapi-fetch hands it a Request. */
  fetch?: (input: Request) => Promise<Response>;
  credentials?: RequestCredentials;
}

export function createApiClient(opts: ClientOptions): ApiClient {
  const client = createClient<paths>({ baseUrl: opts.baseUrl, fetch: opts.fetch, credentials: opts.credentials });
  const headers: Middleware = {
    async onRequest({ request }) {
      const token = await opts.getToken?.();
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      // A call may name its own client and scope (an enterprise page acting on one of its teams,
      // an org page reading its subtree); otherwise the defaults apply.
      const clientId = opts.getClientId?.();
      if (!request.headers.has("clientId") && clientId !== null && clientId !== undefined && clientId !== "") request.headers.set("clientId", String(clientId));
      if (!request.headers.has("requestscope")) request.headers.set("requestscope", opts.getRequestScope?.() ?? "client");
      return request;
    },
  };
  client.use(headers);
  return client;
}
