// The client a page works in (ClientArea.tsx fetches it): a type every page under a client takes.
import type { Row, Schemas } from "../api/client";

export type CurrentClient = Row<"Clients", "id" | "name" | "tier" | "parentId" | "industry", Pick<Schemas["Clients"], "hubspotCompanies">>;
