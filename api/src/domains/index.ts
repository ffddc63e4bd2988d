// The domains' bound functions and actions (SPEC.md section 7), each registered by its own
// <name>.routes.ts. One line per domain.
import type { App, AppDeps } from "../app.ts";
import { registerRealtimeRoutes } from "./realtime/realtime.routes.ts";

export function registerDomainRoutes(app: App, deps: AppDeps): void {
  registerRealtimeRoutes(app, deps);
}
