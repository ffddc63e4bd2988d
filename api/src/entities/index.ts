// The entity registry: every OData entity set, one declaration each, collected from the group files.
import { Registry } from "./registry.ts";
import { adminSets } from "./admin.ts";
import { aiSets } from "./ai.ts";
import { fieldingSets } from "./fielding.ts";
import { projectsSets } from "./projects.ts";
import { resultsSets } from "./results.ts";
import { tenancySets } from "./tenancy.ts";

/** The 66 entity sets of SPEC.md section 3, in the spec's order: what the registry must cover. */
export const SPEC_ENTITY_SETS: readonly string[] = [
  "AiConversationEvaluations",
  "AiConversations",
  "AiProjectSummaries",
  "Categories",
  "ClientFeatures",
  "Clients",
  "CognitoIdps",
  "CognitoUsers",
  "CreditLogs",
  "CreditLogTypes",
  "DataEventsLog",
  "DiagnoseScoreThemes",
  "Enterprises",
  "EstimatedProjectDuration",
  "ExtendedTeams",
  "ExtrapolatedUserAndClients",
  "FeatureFlags",
  "Frameworks",
  "LinkedClients",
  "LinkInvites",
  "Notifications",
  "NotificationTypes",
  "Orgs",
  "ProjectEmailSummaries",
  "ProjectGroupQuestions",
  "ProjectGroups",
  "ProjectGroupSegments",
  "ProjectGroupTags",
  "ProjectGroupVersions",
  "ProjectObjectives",
  "ProjectQuestions",
  "Projects",
  "ProjectSchedules",
  "ProjectShares",
  "ProjectsRegions",
  "ProjectStatuses",
  "ProjectSurveySessions",
  "ProjectWatchers",
  "ProjectWeeks",
  "Prompts",
  "PromptVersions",
  "QuestionOptions",
  "Questions",
  "QuestionTemplates",
  "Regions",
  "RegressionScores",
  "Responses",
  "ResultsAiMessages",
  "ResultsAiThreads",
  "Segments",
  "StandardQuestions",
  "SurveyRuns",
  "SurveySessions",
  "SystemQuestion",
  "SystemQuestionOption",
  "Targets",
  "Teams",
  "TestOptions",
  "TextResponses",
  "TextResponsesThemes",
  "Themes",
  "TranslatedTextRegions",
  "UserAndClients",
  "UserClientRoles",
  "UserRoles",
  "Users",
];

export const allSets = [...tenancySets, ...projectsSets, ...fieldingSets, ...resultsSets, ...aiSets, ...adminSets];

export const registry = new Registry(allSets);
