// A small client of Dynata's Samplify API (the Demand API, v1), as its published reference and
// Dynata's own client libraries (github.com/researchnow/go-samplifyapi-client) describe it:
// - auth: POST {authUrl}/token/password {clientId, username, password} -> {accessToken, expiresIn,
//   refreshToken, refreshExpiresIn}; every call sends "Authorization: Bearer {accessToken}"; a 401
//   signs in again once;
// - POST /projects {extProjectId, title, notificationEmails, devices, category: {surveyTopic},
//   lineItems: [{extLineItemId, title, countryISOCode, languageISOCode, surveyURL, surveyTestURL,
//   indicativeIncidence, daysInField, lengthOfInterview, requiredCompletes, targets, quotaPlan,
//   deliveryType}]}. A line item's required fields (Dynata's Demand API schema, in Dynata's
//   python-demandapi-client, dynatademand/schemas/request/body/create_line_item.json): extLineItemId,
//   countryISOCode, languageISOCode, indicativeIncidence, daysInField, lengthOfInterview and
//   `targets` [{type: "COMPLETE", count}]; Samplify v1's `requiredCompletes` (go-samplifyapi-client
//   lib/line_item.go) is sent beside it. `quotaPlan` {filters: [{attributeId, options, operator}],
//   quotaGroups: [{name, quotaCells: [{quotaNodes: [{attributeId, options}], count}]}]}: filters
//   every respondent must match, quota cells with counts of completes. The line item is answered
//   with its `endLinks` {complete, screenout, overquota, securityKey1, securityKey2, securityLevel
//   (NONE, BASIC, MEDIUM, HIGH)}: Dynata's exit links with {psid} and, on the complete link,
//   {calculatedSecurityCode} (the reference's example: .../respondent/exit?rst=1&psid={psid}&med=
//   {calculatedSecurityCode}). The survey URLs carry Dynata's respondent id as
//   `psid=<#IdParameter[Value]>` (the reference's surveyURL examples);
//   POST /projects/{extProjectId} updates it; POST /projects/{p}/lineItems adds a line item and
//   POST /projects/{p}/lineItems/{l} updates one;
// - POST /projects/{p}/buy [{extLineItemId, surveyURL, surveyTestURL}] buys the line items;
// - POST /projects/{p}/lineItems/{l}/{launch|pause|close} changes a line item's state;
// - POST /projects/{p}/close closes the project;
// - GET /projects/{p}/feasibility -> [{extLineItemId, feasibility: {status, costPerInterview,
//   currency, feasible, totalCount}}] (status PROCESSING until ready: ask again later).
// Every answer is {data, status: {message, errors}}.
// SAMPLIFY_CLIENT_ID, SAMPLIFY_USERNAME and SAMPLIFY_PASSWORD turn it on (all three or none);
// SAMPLIFY_BASE_URL and SAMPLIFY_AUTH_URL point it elsewhere (tests run a loopback fake).
export interface SamplifyConfig {
  clientId: string;
  username: string;
  password: string;
  baseUrl: string;
  authUrl: string;
  fetch?: typeof fetch;
}

export function samplifyFromEnv(env: Record<string, string | undefined> = process.env): SamplifyConfig | null {
  const { SAMPLIFY_CLIENT_ID: clientId, SAMPLIFY_USERNAME: username, SAMPLIFY_PASSWORD: password } = env;
  if (!clientId && !username && !password) return null;
  if (!clientId || !username || !password) throw new Error("Samplify: set SAMPLIFY_CLIENT_ID, SAMPLIFY_USERNAME and SAMPLIFY_PASSWORD together (or none)");
  return {
    clientId,
    username,
    password,
    baseUrl: (env.SAMPLIFY_BASE_URL ?? "https://api.researchnow.com/sample/v1").replace(/\/$/, ""),
    authUrl: (env.SAMPLIFY_AUTH_URL ?? "https://api.researchnow.com/auth/v1").replace(/\/$/, ""),
  };
}

export class SamplifyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type LineItemAction = "launch" | "pause" | "close";
export type DeliveryType = "SLOW" | "BALANCED" | "FAST";

/** A line item's count of completes (the Demand API's `targets`; COMPLETE is its only type). */
export interface LineItemTarget {
  type: "COMPLETE";
  count: number;
}

/** An attribute and the options of it a filter or quota node takes (Dynata's attribute ids, e.g. "11" gender, "13" age). */
export interface QuotaNode {
  attributeId: string;
  options: string[];
}

export interface QuotaFilter extends QuotaNode {
  operator: "include" | "exclude";
}

export interface QuotaCell {
  quotaNodes: QuotaNode[];
  /** Completes of the line item this cell takes. */
  count: number;
}

export interface QuotaPlan {
  filters: QuotaFilter[];
  quotaGroups: { name: string; quotaCells: QuotaCell[] }[];
}

/** Dynata's end links of a line item, as Samplify answers them. */
export interface EndLinks {
  complete: string;
  screenout: string;
  overquota: string;
  securityKey1?: string;
  securityKey2?: string;
  securityLevel?: string;
}

export interface LineItemCriteria {
  extLineItemId: string;
  title: string;
  countryISOCode: string;
  languageISOCode: string;
  surveyURL: string;
  surveyTestURL: string;
  /** Percent of panellists who qualify (0-100). */
  indicativeIncidence: number;
  daysInField: number;
  /** Minutes. */
  lengthOfInterview: number;
  requiredCompletes: number;
  targets: LineItemTarget[];
  quotaPlan: QuotaPlan;
  deliveryType: DeliveryType;
}

export interface ProjectCriteria {
  extProjectId: string;
  title: string;
  notificationEmails: string[];
  devices: ("mobile" | "desktop" | "tablet")[];
  category: { surveyTopic: string[] };
  lineItems: LineItemCriteria[];
}

export interface LineItem extends LineItemCriteria {
  state: string;
  stateReason?: string;
  endLinks?: EndLinks | null;
}

export interface Project {
  extProjectId: string;
  title: string;
  state: string;
  lineItems: LineItem[];
}

export interface Feasibility {
  status: "READY" | "PROCESSING" | "NOT_SUPPORTED" | "FAILED";
  costPerInterview: number;
  currency: string;
  feasible: boolean;
  totalCount: number;
}

interface Envelope<T> {
  data: T;
  status?: { message?: string; errors?: { code?: string; message?: string }[] };
}

export class Samplify {
  private token: { accessToken: string; until: number } | null = null;

  constructor(private readonly cfg: SamplifyConfig) {}

  private get f(): typeof fetch {
    return this.cfg.fetch ?? fetch;
  }

  private async signIn(): Promise<string> {
    const res = await this.f(`${this.cfg.authUrl}/token/password`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ clientId: this.cfg.clientId, username: this.cfg.username, password: this.cfg.password }),
      signal: AbortSignal.timeout(20_000),
    });
    if (!res.ok) throw new SamplifyError(res.status, `Samplify sign-in answered ${res.status}`);
    const t = (await res.json()) as { accessToken?: string; expiresIn?: number };
    if (!t.accessToken) throw new SamplifyError(502, "Samplify sign-in gave no access token");
    // Renew a minute early.
    this.token = { accessToken: t.accessToken, until: Date.now() + Math.max(0, (t.expiresIn ?? 300) - 60) * 1000 };
    return t.accessToken;
  }

  async request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const token = this.token && this.token.until > Date.now() ? this.token.accessToken : await this.signIn();
      const res = await this.f(`${this.cfg.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(20_000),
      });
      if (res.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      const text = await res.text();
      const parsed = text ? (JSON.parse(text) as Envelope<T>) : null;
      if (!res.ok) {
        const why = parsed?.status?.errors
          ?.map((e) => e.message)
          .filter(Boolean)
          .join("; ");
        throw new SamplifyError(res.status, `Samplify answered ${res.status} to ${method} ${path.split("?")[0]}${why ? `: ${why}` : ""}`);
      }
      return (parsed?.data ?? null) as T;
    }
  }

  createProject(p: ProjectCriteria): Promise<Project> {
    return this.request("POST", "/projects", p);
  }

  updateProject(p: Partial<ProjectCriteria> & { extProjectId: string }): Promise<Project> {
    return this.request("POST", `/projects/${encodeURIComponent(p.extProjectId)}`, p);
  }

  getProject(extProjectId: string): Promise<Project> {
    return this.request("GET", `/projects/${encodeURIComponent(extProjectId)}`);
  }

  addLineItem(extProjectId: string, l: LineItemCriteria): Promise<LineItem> {
    return this.request("POST", `/projects/${encodeURIComponent(extProjectId)}/lineItems`, l);
  }

  updateLineItem(extProjectId: string, l: Partial<LineItemCriteria> & { extLineItemId: string }): Promise<LineItem> {
    return this.request("POST", `/projects/${encodeURIComponent(extProjectId)}/lineItems/${encodeURIComponent(l.extLineItemId)}`, l);
  }

  buy(extProjectId: string, items: { extLineItemId: string; surveyURL: string; surveyTestURL: string }[]): Promise<{ extLineItemId: string; state: string }[]> {
    return this.request("POST", `/projects/${encodeURIComponent(extProjectId)}/buy`, items);
  }

  lineItemState(extProjectId: string, extLineItemId: string, action: LineItemAction): Promise<LineItem> {
    return this.request("POST", `/projects/${encodeURIComponent(extProjectId)}/lineItems/${encodeURIComponent(extLineItemId)}/${action}`);
  }

  closeProject(extProjectId: string): Promise<Project> {
    return this.request("POST", `/projects/${encodeURIComponent(extProjectId)}/close`);
  }

  feasibility(extProjectId: string): Promise<{ extLineItemId: string; feasibility: Feasibility }[]> {
    return this.request("GET", `/projects/${encodeURIComponent(extProjectId)}/feasibility`);
  }
}
