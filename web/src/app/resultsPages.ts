// A project's results pages, code-split (one chunk each): ResultsArea.tsx draws them and pages.ts preloads the ones a URL
// needs. Their own module, not pages.ts: pages.ts splits ResultsArea.tsx off, so ResultsArea.tsx importing pages.ts
// would close an import circle.
import { lazyPage } from "../lib/lazyPage";

export const Summary = lazyPage(() => import("../routes/results/pages/Summary"));
export const Overview = lazyPage(() => import("../routes/results/pages/Overview"));
export const Demographics = lazyPage(() => import("../routes/results/pages/Demographics"));
export const Advertising = lazyPage(() => import("../routes/results/pages/Advertising"));
export const Npd = lazyPage(() => import("../routes/results/pages/Npd"));
export const QuestionPage = lazyPage(() => import("../routes/results/pages/QuestionPage"));
export const TextPage = lazyPage(() => import("../routes/results/pages/TextPage"));
export const Wave = lazyPage(() => import("../routes/results/pages/Wave"));
export const Drivers = lazyPage(() => import("../routes/results/pages/Drivers"));
export const GrowIdeas = lazyPage(() => import("../routes/results/pages/GrowIdeas"));
export const HeadToHead = lazyPage(() => import("../routes/results/pages/HeadToHead"));
export const PriceSensitivity = lazyPage(() => import("../routes/results/pages/PriceSensitivity"));
export const MarketReach = lazyPage(() => import("../routes/results/pages/MarketReach"));
export const Chat = lazyPage(() => import("../routes/results/pages/Chat"));
export const Markets = lazyPage(() => import("../routes/results/pages/Markets"));
export const CrossTab = lazyPage(() => import("../routes/results/pages/CrossTab"));
