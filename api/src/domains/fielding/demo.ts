// Demo projects (development starts only, after the demo clients are seeded): completed projects
// of every type for Acme Team A, and one for Globex, authored through the same services a user's
// calls go through, approved by staff, and fielded by the simulated panel through the fielding
// engine, so every results page has data at first start. Waves and NPD launch weeks are fielded
// now but dated at their scheduled dates (weeks apart), as if the panel had answered then.
import type { Db, Tx } from "../../db/client.ts";
import type { Registry } from "../../entities/registry.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { changeTargets, createProject } from "../projects/projects.service.ts";
import { createQuestion } from "../projects/questions.service.ts";
import { createMarketReach, createPriceSensitivities } from "../projects/setup.service.ts";
import { superApprove } from "../lifecycle/lifecycle.service.ts";
import { updateProjectScheduling, weekSinceLaunch } from "../scheduling/scheduling.service.ts";
import { tick } from "./simulated-panel.ts";

interface DemoProject {
  client: "teamA" | "globex";
  projectName: string;
  projectTypeId: 1 | 2 | 3 | 4;
  frameworkId: number;
  regionIds: number[];
  sampleSize: number;
  concepts: [string, string | null][];
  price?: { minPrice: number; maxPrice: number };
  reach?: boolean;
  /** Waves: how many, every how many weeks, the first this many weeks ago. */
  waves?: { count: number; everyWeeks: number; firstWeeksAgo: number };
  launchWeeksAgo?: number;
  questions?: { questionText: string; questionTitle: string; questionTypeId: 1 | 2 | 3; questionPositionId: number; options?: string[] }[];
  /** Screening targets (system question options): the simulated panel screens out the rest at the census's shares (issue 36). */
  targets?: number[];
}

export const DEMO_PROJECTS: readonly DemoProject[] = [
  {
    client: "teamA",
    projectName: "Plant-based snacks idea screen",
    projectTypeId: 1,
    frameworkId: 1000,
    regionIds: [1, 2],
    sampleSize: 120,
    concepts: [
      ["Crunchy chickpea puffs", "Oven-baked chickpea puffs in sea salt and smoky paprika, 12 g protein a bag."],
      ["Seaweed rice crackers", "Thin rice crackers with toasted nori, lightly salted."],
      ["Veggie crisps trio", "Beetroot, parsnip and sweet potato crisps, cooked in olive oil."],
    ],
    questions: [
      // An audience (profile) question, asked before the concepts (position 7, BeforeLoop).
      {
        questionText: "How often do you buy savoury snacks?",
        questionTitle: "Snacking frequency",
        questionTypeId: 1,
        questionPositionId: 7,
        options: ["Every day", "A few times a week", "About once a week", "Less often"],
      },
    ],
  },
  {
    client: "teamA",
    projectName: "Protein bar pricing",
    projectTypeId: 1,
    frameworkId: 1010,
    regionIds: [1],
    sampleSize: 200,
    concepts: [
      ["Peanut butter crunch bar", "20 g protein, no added sugar, 45 g bar."],
      ["Dark chocolate sea salt bar", "15 g protein with 70% dark chocolate, 40 g bar."],
    ],
    price: { minPrice: 1, maxPrice: 8 },
  },
  {
    client: "teamA",
    projectName: "Energy drink flavour line-up",
    projectTypeId: 1,
    frameworkId: 1020,
    regionIds: [1],
    sampleSize: 200,
    concepts: [
      ["Tropical mango", null],
      ["Wild berry", null],
      ["Citrus yuzu", null],
      ["Cola lime", null],
      ["Green apple", null],
    ],
    reach: true,
  },
  {
    client: "teamA",
    projectName: "Brand message tracker",
    projectTypeId: 2,
    frameworkId: 2000,
    regionIds: [1],
    sampleSize: 100,
    concepts: [
      ["Good for you, good for the planet", "Our snacks are made from plants, in packs that compost."],
      ["Real food, real fast", "Wholesome snacks ready when you are."],
    ],
    waves: { count: 4, everyWeeks: 2, firstWeeksAgo: 7 },
  },
  {
    client: "teamA",
    projectName: "Sparkling water launch tracker",
    projectTypeId: 4,
    frameworkId: 4000,
    regionIds: [1],
    sampleSize: 100,
    concepts: [["Fizz & Co. sparkling water", "Lightly sparkling spring water with a hint of lime, 330 ml cans."]],
    waves: { count: 4, everyWeeks: 4, firstWeeksAgo: 14 },
    launchWeeksAgo: 16,
    questions: [{ questionText: "What would make you buy Fizz & Co. more often?", questionTitle: "Buy more often", questionTypeId: 3, questionPositionId: 3 }],
  },
  {
    client: "teamA",
    projectName: "Weekday lunch habits",
    projectTypeId: 3,
    frameworkId: 3000,
    regionIds: [1],
    sampleSize: 150,
    concepts: [],
    // Working ages, 25-54: about half of New Zealand's adults (0.189 + 0.169 + 0.161 = 0.519 of the
    // census), so about half the panel's entrants are screened out, as the incidence estimate says.
    targets: [5100002, 5100003, 5100004],
    questions: [
      {
        questionText: "Which best describes your weekday lunch?",
        questionTitle: "Lunch style",
        questionTypeId: 1,
        questionPositionId: 9,
        options: ["I bring lunch from home", "I buy lunch near work", "I skip lunch", "I work from home and cook"],
      },
      { questionText: "What would make your weekday lunch better?", questionTitle: "Better lunch", questionTypeId: 3, questionPositionId: 3 },
      {
        questionText: "Which of these do you buy for lunch at least once a week?",
        questionTitle: "Lunch purchases",
        questionTypeId: 2,
        questionPositionId: 3,
        options: ["Sandwich", "Sushi", "Salad", "Hot meal", "Soup", "None of these"],
      },
    ],
  },
  {
    client: "globex",
    projectName: "Unlimited mobile plan concepts",
    projectTypeId: 1,
    frameworkId: 1000,
    regionIds: [15],
    sampleSize: 150,
    concepts: [
      ["Unlimited everything, one price", "Unlimited data, calls and texts for $45 a month, no contract."],
      ["Family share plan", "Up to five lines sharing 200 GB, $120 a month."],
    ],
  },
];

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

async function ctxOf(tx: Db, email: string): Promise<RequestCtx & { userId: number }> {
  const [u] = await tx<{ id: number; isStaff: boolean; roleId: number }[]>`select id, is_staff as "isStaff", role_id as "roleId" from users where lower(email) = ${email}`;
  if (!u) throw new Error(`demo user ${email} is missing`);
  return { principal: { userId: u.id, isStaff: u.isStaff, isSuperAdmin: u.roleId === 3 }, clientId: null, descendants: false, sessionId: null, userId: u.id };
}

/** Dates a run's answers at its schedule date (a demo's history written as if it ran then). */
async function backdate(tx: Tx | Db, runId: number, date: string, launchDate: string | null): Promise<void> {
  const at = `${date}T10:00:00Z`;
  await tx`update survey_runs set launched_at = ${at}::timestamptz, closed_at = ${at}::timestamptz + interval '20 hours', processed_at = ${at}::timestamptz + interval '21 hours' where id = ${runId}`;
  await tx`update survey_sessions set started_at = ${at}::timestamptz + (id % 1200) * interval '1 minute', completed_at = ${at}::timestamptz + (id % 1200) * interval '1 minute' + interval '6 minutes', created_at = ${at}::timestamptz where survey_run_id = ${runId}`;
  await tx`update project_survey_sessions p set completed_at = s.completed_at, created_at = s.completed_at,
             week = case when ${launchDate}::date is null then p.week else ${launchDate ? weekSinceLaunch(launchDate, date) : null}::int end
           from survey_sessions s where s.id = p.survey_session_id and p.survey_run_id = ${runId}`;
  await tx`update responses r set created_at = s.completed_at from survey_sessions s where s.id = r.survey_session_id and r.survey_run_id = ${runId}`;
  await tx`update text_responses r set created_at = s.completed_at from survey_sessions s where s.id = r.survey_session_id and r.survey_run_id = ${runId}`;
}

/**
 * Authors, approves and fields the demo projects. Returns the project ids. Idempotent enough for a
 * first start: it is called only right after the demo clients were seeded.
 */
export async function seedDemoProjects(db: Db, registry: Registry, publicUrl: string, log: (m: string) => void = () => {}): Promise<number[]> {
  const t0 = performance.now();
  const uma = await ctxOf(db, "user@acme.test");
  const gil = await ctxOf(db, "admin@globex.test");
  const staff = await ctxOf(db, "staff@ideally.test");
  const [{ teamA, globex }] = await db<{ teamA: number; globex: number }[]>`
    select (select id from clients where name = 'Acme Team A') as "teamA", (select id from clients where name = 'Globex') as globex`;
  // An allowance that pays for the demo projects, so the teams' own credits stay to play with.
  await db`insert into credit_logs (client_id, type, credit_amount, description, created_by_user_id) values
    (${teamA}, 86, 20000, 'Demo projects allowance', 5380), (${globex}, 86, 5000, 'Demo projects allowance', 5380)`;
  const today = new Date().toISOString().slice(0, 10);
  const ids: number[] = [];
  for (const d of DEMO_PROJECTS) {
    const clientId = d.client === "teamA" ? teamA : globex;
    const who = { ...(d.client === "teamA" ? uma : gil), clientId };
    const launchDate = d.launchWeeksAgo ? addDays(today, -7 * d.launchWeeksAgo) : null;
    const created = JSON.parse(
      await createProject(db, registry, who, { projectName: d.projectName, projectTypeId: d.projectTypeId, frameworkId: d.frameworkId, regionIds: d.regionIds, sampleSize: d.sampleSize, launchDate }),
    ) as { id: number };
    const id = created.id;
    ids.push(id);
    if (d.targets) await changeTargets(db, registry, who, id, { targets: d.targets.map((systemQuestionOptionId) => ({ systemQuestionOptionId })) });
    let order = 0;
    const optionIds: number[] = [];
    for (const [text, description] of d.concepts) {
      const [o] = await db<{ id: number }[]>`
        insert into test_options (client_id, project_id, concept_text, concept_description, sort_order) values (${clientId}, ${id}, ${text}, ${description}, ${++order}) returning id`;
      optionIds.push(o!.id);
    }
    for (const question of d.questions ?? []) {
      await createQuestion(db, registry, who, {
        projectId: id,
        ...question,
        questionOptions: question.options?.map((optionText, i) => ({ optionText, exclusive: optionText === "None of these", sortOrder: i + 1 })),
      });
    }
    if (d.price) await createPriceSensitivities(db, who, id, d.price);
    if (d.reach) await createMarketReach(db, who, id, { testOptionIds: optionIds, maxCombinationSize: 3 });
    if (d.waves) {
      await updateProjectScheduling(db, who, id, { scheduleStartDate: null, scheduleFrequencyWeeks: d.waves.everyWeeks, wavesRequired: true, scheduleWavesRequired: d.waves.count });
    }
    await superApprove(db, { ...staff, clientId }, { projectId: id });
    if (d.waves) {
      // The waves' history: wave k was due firstWeeksAgo - (k-1) x everyWeeks weeks ago.
      const w = d.waves;
      await db`update project_schedules set schedule_date = ${today}::date - (${w.firstWeeksAgo * 7} - (wave_number - 1) * ${w.everyWeeks * 7}) * interval '1 day'
               where project_id = ${id} and survey_run_id is null`;
    }
  }
  // Field everything: each tick starts the due waves, launches their runs, lets the panel answer
  // and processes the closed runs; a tracker's next wave starts on the tick after its last closed.
  for (let i = 0; i < 200; i++) {
    const r = await tick(db, publicUrl, { batch: 1000 });
    if (!r.created && !r.simulated && !r.processed && !r.more) break;
  }
  for (const id of ids) {
    const runs = await db<{ id: number; date: string; launch: string | null }[]>`
      select distinct r.id, r.schedule_date::text as date, p.launch_date::text as launch
      from survey_runs r join project_schedules s on s.survey_run_id = r.id join projects p on p.id = s.project_id where s.project_id = ${id}`;
    for (const r of runs) if (r.date < today) await backdate(db, r.id, r.date, r.launch);
  }
  log(`fielded ${ids.length} demo projects in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return ids;
}
