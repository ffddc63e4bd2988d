// The domains' bound functions and actions (SPEC.md section 7), each registered by its own
// <name>.routes.ts. One line per domain.
import type { App, AppDeps } from "../app-types.ts";
import { registerUserRoutes } from "./users/users.routes.ts";
import { registerTenancyRoutes } from "./tenancy/tenancy.routes.ts";
import { registerFlagRoutes } from "./flags/flags.routes.ts";
import { registerRealtimeRoutes } from "./realtime/realtime.routes.ts";
import { registerProjectRoutes } from "./projects/projects.routes.ts";
import { registerSamlAdminRoutes } from "../auth/saml.routes.ts";
import { registerInviteRoutes } from "./invites/invites.routes.ts";
import { registerMailboxRoutes } from "../email/mailbox.routes.ts";
import { registerLifecycleRoutes } from "./lifecycle/lifecycle.routes.ts";
import { registerCreditRoutes } from "./credits/credits.routes.ts";
import { registerNotificationRoutes } from "./notifications/notifications.routes.ts";
import { registerWatcherRoutes } from "./watchers/watchers.routes.ts";
import { registerSharingRoutes } from "./sharing/sharing.routes.ts";
import { registerSchedulingRoutes } from "./scheduling/scheduling.routes.ts";
import { registerFieldingRoutes } from "./fielding/fielding.routes.ts";
import { registerRespondentRoutes } from "./fielding/respondent.routes.ts";
import { registerResultsRoutes } from "./results/results.routes.ts";
import { registerGroupRoutes } from "./groups/groups.routes.ts";
import { registerCommandRoutes } from "./commands/commands.routes.ts";
import { registerPromptRoutes } from "./prompts/prompts.routes.ts";
import { registerClientAdminRoutes } from "./clients/clients.routes.ts";
import { registerPowerPointRoutes } from "./results/powerpoint.routes.ts";
import { registerLoggerRoutes } from "./logger/logger.routes.ts";
import { registerSummaryRoutes } from "./ai/summaries.routes.ts";
import { registerChatRoutes } from "./ai/chat.routes.ts";
import { registerConversationRoutes } from "./ai/conversations.routes.ts";

export function registerDomainRoutes(app: App, deps: AppDeps): void {
  registerUserRoutes(app, deps);
  registerTenancyRoutes(app, deps);
  registerFlagRoutes(app, deps);
  registerRealtimeRoutes(app, deps);
  registerProjectRoutes(app, deps);
  registerSamlAdminRoutes(app, deps.db);
  registerInviteRoutes(app, deps);
  registerMailboxRoutes(app, deps);
  registerLifecycleRoutes(app, deps);
  registerCreditRoutes(app, deps);
  registerNotificationRoutes(app, deps);
  registerWatcherRoutes(app, deps);
  registerSharingRoutes(app, deps);
  registerSchedulingRoutes(app, deps);
  registerFieldingRoutes(app, deps);
  registerRespondentRoutes(app, deps);
  registerResultsRoutes(app, deps);
  registerGroupRoutes(app, deps);
  registerCommandRoutes(app, deps);
  registerPromptRoutes(app, deps);
  registerClientAdminRoutes(app, deps);
  registerPowerPointRoutes(app, deps);
  registerLoggerRoutes(app, deps);
  registerSummaryRoutes(app, deps);
  registerChatRoutes(app, deps);
  registerConversationRoutes(app, deps);
}
