// Every job the API runs, registered by server.ts at start-up. Domains add their defineJob()
// declarations here (fielding, processing, AI, exports) as they arrive.
import type { AnyJob } from "./workers.ts";
import { schedulerJob } from "./scheduler.ts";
import { fieldingTickJob } from "../domains/fielding/fielding.jobs.ts";
import { commandJob } from "../domains/commands/commands.jobs.ts";
import { powerPointJob } from "../domains/results/powerpoint.ts";
import { summariesJob } from "../domains/ai/summaries.service.ts";
import { chatJob } from "../domains/ai/chat.service.ts";
import { emailSummariesJob } from "../domains/ai/email-summaries.ts";

export const jobs: readonly AnyJob[] = [schedulerJob, fieldingTickJob, commandJob, powerPointJob, summariesJob, chatJob, emailSummariesJob];
