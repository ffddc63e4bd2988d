// A small HubSpot CRM v3 client (fetch): bearer token (a private app's access token), cursor paging,
// and the rate limit honoured (429: wait Retry-After, or back off, then try again, up to 4 times).
// HUBSPOT_TOKEN turns it on; HUBSPOT_BASE_URL points it elsewhere (tests run a loopback fake).
export interface HubSpotConfig {
  token: string;
  baseUrl: string;
  fetch?: typeof fetch;
}

export function hubspotFromEnv(env: Record<string, string | undefined> = process.env): HubSpotConfig | null {
  if (!env.HUBSPOT_TOKEN) return null;
  return { token: env.HUBSPOT_TOKEN, baseUrl: (env.HUBSPOT_BASE_URL ?? "https://api.hubapi.com").replace(/\/$/, "") };
}

export class HubSpotError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class HubSpot {
  constructor(private readonly cfg: HubSpotConfig) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const f = this.cfg.fetch ?? fetch;
    for (let attempt = 0; ; attempt++) {
      const res = await f(`${this.cfg.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.cfg.token}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(20_000),
      });
      if (res.status === 429 && attempt < 4) {
        const wait = Number(res.headers.get("retry-after")) || 2 ** attempt;
        await new Promise((r) => setTimeout(r, Math.min(wait, 10) * 1000));
        continue;
      }
      if (res.status === 404) throw new HubSpotError(404, `HubSpot: ${path} not found`);
      if (!res.ok) throw new HubSpotError(res.status, `HubSpot answered ${res.status} to ${method} ${path.split("?")[0]}`);
      return (res.status === 204 ? null : await res.json()) as T;
    }
  }

  /** Every page of a list endpoint (paging.next.after). */
  async *list<T>(path: string): AsyncGenerator<T> {
    let after: string | undefined;
    do {
      const sep = path.includes("?") ? "&" : "?";
      const page = await this.request<{ results: T[]; paging?: { next?: { after: string } } }>("GET", `${path}${after ? `${sep}after=${encodeURIComponent(after)}` : ""}`);
      yield* page.results;
      after = page.paging?.next?.after;
    } while (after);
  }

  company(id: string, properties: string[]) {
    return this.request<{ id: string; properties: Record<string, string | null> }>(
      "GET",
      `/crm/v3/objects/companies/${encodeURIComponent(id)}?properties=${properties.map(encodeURIComponent).join(",")}`,
    );
  }

  companyProperties() {
    return this.list<{ name: string; label: string; hubspotDefined?: boolean }>("/crm/v3/properties/companies");
  }

  async contactByEmail(email: string): Promise<string | null> {
    const r = await this.request<{ results: { id: string }[] }>("POST", "/crm/v3/objects/contacts/search", {
      filterGroups: [{ filters: [{ propertyName: "email", operator: "EQ", value: email }] }],
      limit: 1,
    });
    return r.results[0]?.id ?? null;
  }

  async createContact(properties: Record<string, string>): Promise<string> {
    return (await this.request<{ id: string }>("POST", "/crm/v3/objects/contacts", { properties })).id;
  }

  async upsertDeals(inputs: { id: string; properties: Record<string, string> }[]): Promise<number> {
    if (!inputs.length) return 0;
    const r = await this.request<{ results: unknown[] }>("POST", "/crm/v3/objects/deals/batch/upsert", {
      inputs: inputs.map((i) => ({ idProperty: "ideally_project_id", id: i.id, properties: i.properties })),
    });
    return r.results.length;
  }
}
