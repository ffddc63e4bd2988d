// Behind sign-in, code-split (one chunk each): SignedInArea.tsx draws them and pages.ts preloads the ones a URL
// needs. Their own module, not pages.ts: pages.ts splits SignedInArea.tsx off, so SignedInArea.tsx importing pages.ts
// would close an import circle.
import { lazyPage } from "../lib/lazyPage";

export const Onboarding = lazyPage(() => import("../routes/account/Onboarding"));
export const Account = lazyPage(() => import("../routes/account/Account"));
export const AdminArea = lazyPage(() => import("../routes/admin/AdminArea"));
