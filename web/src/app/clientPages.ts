// A client's pages, code-split (one chunk each): ClientArea.tsx draws them and pages.ts preloads the ones a URL
// needs. Their own module, not pages.ts: pages.ts splits ClientArea.tsx off, so ClientArea.tsx importing pages.ts
// would close an import circle.
import { lazyPage } from "../lib/lazyPage";

export const Home = lazyPage(() => import("../routes/main/Home"));
export const ProjectPage = lazyPage(() => import("../routes/main/ProjectPage"));
export const ProjectSurveys = lazyPage(() => import("../routes/main/ProjectSurveys"));
export const ManageArea = lazyPage(() => import("../routes/manage/ManageArea"));
export const ResultsArea = lazyPage(() => import("../routes/results/ResultsArea"));
export const GroupsArea = lazyPage(() => import("../routes/groups/GroupsArea"));
export const CreateGroup = lazyPage(() => import("../routes/groups-admin/CreateGroup"));
export const EditGroup = lazyPage(() => import("../routes/groups-admin/EditGroup"));
