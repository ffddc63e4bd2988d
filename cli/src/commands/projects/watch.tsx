// `ideally projects watch ID`: follows a project until its results are ready. On a terminal an Ink
// view (loaded only here, so other commands start fast); with --json one event per line; piped
// without --json, one plain line per change.
import { useEffect, useState } from "react";
import { idArg } from "../../args.ts";
import { CliError, EXIT_DECLINED, EXIT_STALLED, EXIT_TIMEOUT, usageError } from "../../errors.ts";
import { warn } from "../../output.ts";
import { needClient, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "@ideally/contracts/labels";
import { surveyStatusName, Watcher, type LiveEvent, type RunState, type WatchState } from "./watcher.ts";

export interface WatchOptions extends GlobalOptions {
  interval?: string;
  timeout?: string;
  stall?: string;
}

const line = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);

/** The changing part of the state (what a person or script would want to hear about). */
const digest = (s: WatchState) => JSON.stringify([s.statusCode, s.phase, s.runs.map((r) => [r.complete, r.surveyStatusId]), s.options.map((o) => o.count)]);

/** The status as a person reads it: SPEC 4's names, and 400 while fielding as SPEC 1's modal says it. */
export const statusLabel = (s: Pick<WatchState, "statusCode" | "phase">) => (s.statusCode === 400 && s.phase === "fielding" ? "Survey in progress" : statusName(s.statusCode));

const seconds = (v: string | undefined, flag: string, min: number, max: number): number | null => {
  if (v === undefined) return null;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || !Number.isFinite(n) || n < min || n > max) throw usageError(`${flag}: expected seconds from ${min} to ${max}, got '${v}'`);
  return n;
};

/** How a watch ends: the results ready (0), or not, each with its own exit code. */
type Ending =
  | { kind: "done"; state: WatchState }
  | { kind: "stalled"; state: WatchState; since: number }
  | { kind: "stalledRun"; state: WatchState; run: RunState }
  | { kind: "timeout"; state: WatchState };

/** A run still open that the fielding engine marked stalled (the server's run state, not a local timer). */
export function stalledRun(s: WatchState): RunState | undefined {
  return s.phase === "fielding" ? s.runs.find((r) => r.stalledAt !== null && r.surveyStatusId < 90) : undefined;
}

/** An ISO time to the minute, in UTC. */
const minute = (iso: string | null) => (iso ? `${new Date(iso).toISOString().slice(0, 16)}Z` : "its field end");

/** What a status view says of an open run (issue 21): "stalled", or when it closes; nothing once closed. */
export function runPeriod(r: RunState): string {
  if (r.surveyStatusId >= 90) return "";
  if (r.stalledAt) return "stalled";
  return r.fieldEndAt ? `closes ${minute(r.fieldEndAt)}` : "";
}

export async function runWatch(id: string, o: WatchOptions): Promise<void> {
  const interval = seconds(o.interval, "--interval", 0.5, 3600) ?? 5;
  const timeout = seconds(o.timeout, "--timeout", 1, 30 * 86400);
  const stall = seconds(o.stall, "--stall", 1, 30 * 86400);
  const key = idArg(id);
  const api = signedIn(o);
  needClient(api);
  const w = new Watcher(api, Number(key), interval * 1000);
  // A message that does not parse is a line on stderr (the Ink view shows it among its recent lines instead).
  if (o.json || !process.stdout.isTTY) w.onRefused((error) => warn(`ignored a live message that does not match its declaration: ${error}`));
  // Stall: the completes have not moved for --stall seconds while fielding.
  let completes = -1;
  let movedAt = Date.now();
  const total = (s: WatchState) => s.runs.reduce((a, r) => a + r.complete, 0);
  const ended = new Promise<Ending>((resolve, reject) => {
    w.onFailure(reject);
    w.on((s) => {
      if (s.phase === "ready" || s.phase === "stopped") return resolve({ kind: "done", state: s });
      const marked = stalledRun(s);
      if (marked) return resolve({ kind: "stalledRun", state: s, run: marked });
      const n = total(s);
      if (n !== completes || s.phase !== "fielding") {
        completes = n;
        movedAt = Date.now();
      }
    });
    if (timeout !== null) setTimeout(() => resolve({ kind: "timeout", state: w.state }), timeout * 1000).unref();
    if (stall !== null) {
      setInterval(
        () => {
          if (w.state?.phase === "fielding" && Date.now() - movedAt >= stall * 1000) resolve({ kind: "stalled", state: w.state, since: movedAt });
        },
        Math.min(1000, stall * 250),
      ).unref();
    }
  });
  let last = "";
  if (o.json) {
    w.on((s, e?: LiveEvent) => {
      if (e) line({ event: e.event, channel: e.channel ?? null, data: e.data ?? null });
      const d = digest(s);
      if (d !== last) {
        last = d;
        line({ event: "State", data: s });
      }
    });
  } else if (!process.stdout.isTTY) {
    w.on((s) => {
      const d = digest(s);
      if (d === last) return;
      last = d;
      const runs = s.runs.map((r) => `${r.regionName} ${r.complete}/${r.target ?? "?"}${runPeriod(r) ? ` (${runPeriod(r)})` : ""}`).join(", ");
      process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${s.statusCode} ${statusLabel(s)} (${s.phase})${runs ? `: ${runs}` : ""}\n`);
    });
  }
  let unmount: (() => void) | undefined;
  try {
    await w.start();
    if (!o.json && process.stdout.isTTY) unmount = await drawInk(w);
    // The first state (which may already be final).
    w.emit();
    const end = await ended;
    if (end.kind === "done") {
      // The event that ended it may be ahead of the counts: read them once more for the last word.
      await w.refresh().catch(() => undefined);
      w.emit();
    }
    const s = w.state;
    const result = end.kind === "done" ? (s.phase === "ready" ? "ready" : "declined") : end.kind === "stalled" || end.kind === "stalledRun" ? "stalled" : "timeout";
    if (o.json) line({ event: "Done", result, data: s });
    unmount?.();
    unmount = undefined;
    if (result === "declined") throw new CliError(`project ${id} went back to ${s.statusCode} ${statusName(s.statusCode)} (declined or unsubmitted)`, EXIT_DECLINED);
    if (end.kind === "stalledRun") {
      const r = end.run;
      throw new CliError(
        `project ${id} stalled: run ${r.surveyRunId} ${r.regionName} ${r.complete}/${r.target ?? "?"} has had no complete for 24 hours (marked stalled at ${minute(r.stalledAt)} by the fielding engine); it closes at ${minute(r.fieldEndAt)} with the completes it has, or staff extend it`,
        EXIT_STALLED,
      );
    }
    if (result === "stalled") {
      throw new CliError(
        `project ${id} stalled: ${total(s)} completes and none new for ${Math.round((Date.now() - (end.kind === "stalled" ? end.since : 0)) / 1000)} s (--stall ${stall}); the runs: ${s.runs.map((r) => `${r.surveyRunId} ${r.regionName} ${r.complete}/${r.target ?? "?"} ${surveyStatusName(r.surveyStatusId)}`).join(", ")}`,
        EXIT_STALLED,
      );
    }
    if (result === "timeout") throw new CliError(`project ${id} is still ${s.statusCode} ${statusLabel(s)} (${s.phase}) after --timeout ${timeout} s`, EXIT_TIMEOUT);
  } finally {
    w.stop();
    unmount?.();
  }
}

/** Fits a line into `width` columns, an ellipsis marking what was cut. */
export function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

type Ink = Pick<typeof import("ink"), "Box" | "Text">;
const pctOf = (done: number, total: number | null) => (total ? `${Math.min(100, Math.round((done / total) * 100))}%`.padStart(4) : "   –");
const PHASE: Record<WatchState["phase"], string> = {
  waiting: "waiting for approval and launch",
  fielding: "fielding",
  processing: "processing results",
  ready: "results ready",
  stopped: "stopped",
};

/** The recent lines with React keys that move with them as older lines drop off the top: a line's
 * text (timed to the second), numbered from its second occurrence. */
export function recentKeyed(lines: string[]): [string, string][] {
  const seen = new Map<string, number>();
  return lines.map((l) => {
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    return [n === 1 ? l : `${l}#${n}`, l];
  });
}

/** One line of the view, cut to the width; with colour off (NO_COLOR), no colour, bold or dim. */
function Line(p: { ink: Ink; colour: boolean; width: number; children: string; bold?: boolean; dim?: boolean; color?: string }) {
  const colour = p.colour;
  return (
    <p.ink.Text wrap="truncate-end" bold={colour && p.bold} dimColor={colour && p.dim} color={colour ? p.color : undefined}>
      {fit(p.children, p.width)}
    </p.ink.Text>
  );
}

function WatchView({ w, ink, colour }: { w: Watcher; ink: Ink; colour: boolean }) {
  const { Box } = ink;
  const [s, set] = useState<WatchState>(w.state);
  const [cols, setCols] = useState<number>(process.stdout.columns || 80);
  useEffect(() => w.on((next) => set({ ...next })), [w]);
  useEffect(() => {
    const onResize = () => setCols(process.stdout.columns || 80);
    process.stdout.on("resize", onResize);
    return () => void process.stdout.off("resize", onResize);
  }, []);
  // Every line fits the terminal (one column of padding each side): labels and bars shrink first.
  const width = Math.max(20, cols - 2);
  const want = Math.max(12, ...s.runs.map((r) => r.regionName.length + 8), ...s.options.map((o) => o.conceptText.length));
  const label = Math.min(want, Math.max(10, Math.floor(width * 0.3)));
  const barWidth = Math.max(5, Math.min(28, width - label - 28));
  const bar = (done: number, total: number | null) => {
    if (!total) return "".padEnd(barWidth, "·");
    const n = Math.round(Math.max(0, Math.min(1, done / total)) * barWidth);
    return "█".repeat(n) + "░".repeat(barWidth - n);
  };
  const row = (name: string, done: number, total: number | null, tail: string) => fit(`${fit(name, label).padEnd(label)} ${bar(done, total)} ${pctOf(done, total)} ${tail}`, width);
  const T = { ink, colour, width };
  return (
    <Box flexDirection="column" paddingX={1} width={cols}>
      <Line {...T} bold>{`Project ${s.projectId} · ${s.projectName}`}</Line>
      <Line {...T} color={s.phase === "ready" ? "green" : s.phase === "stopped" ? "red" : "yellow"}>{`Status  ${s.statusCode} ${statusLabel(s)}  (${PHASE[s.phase]})`}</Line>
      <Box marginTop={1} flexDirection="column">
        <Line {...T} bold>
          Responses per region
        </Line>
        {s.runs.length === 0 ? (
          <Line {...T} dim>
            no survey run yet
          </Line>
        ) : null}
        {s.runs.map((r) => (
          <Line key={r.surveyRunId} {...T}>
            {row(
              `${r.regionName} ${r.isCustomerPanel ? "(cust)" : "(panel)"}`,
              r.complete,
              r.target,
              `${String(r.complete).padStart(5)}/${r.target ?? "?"}  ${surveyStatusName(r.surveyStatusId)}${runPeriod(r) ? `, ${runPeriod(r)}` : ""}`,
            )}
          </Line>
        ))}
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Line {...T} bold>
          Responses per test option
        </Line>
        {s.options.map((o) => (
          <Line key={String(o.testOptionId)} {...T}>
            {row(o.conceptText, o.count, o.target, `${String(o.count).padStart(5)}/${o.target ?? "?"}`)}
          </Line>
        ))}
      </Box>
      {Object.keys(s.jobs).length ? (
        <Box marginTop={1} flexDirection="column">
          <Line {...T} bold>
            Jobs
          </Line>
          {Object.entries(s.jobs).map(([id, j]) => (
            <Line key={id} {...T}>
              {row(id, j.pct, 100, j.message ?? "")}
            </Line>
          ))}
        </Box>
      ) : null}
      <Box marginTop={1} flexDirection="column">
        {recentKeyed(s.recent).map(([k, r]) => (
          <Line key={k} {...T} dim>
            {r}
          </Line>
        ))}
        <Line {...T} dim>
          {s.phase === "ready" ? `Results are ready: ideally results ${s.projectId}` : "Ctrl-C stops watching (the project carries on)"}
        </Line>
      </Box>
    </Box>
  );
}

async function drawInk(w: Watcher): Promise<() => void> {
  const ink = await import("ink");
  // NO_COLOR (https://no-color.org): no colour, no bold, no dim; the text is the same.
  const colour = !(process.env.NO_COLOR != null && process.env.NO_COLOR !== "");
  const app = ink.render(<WatchView w={w} ink={ink} colour={colour} />, { exitOnCtrlC: true });
  return () => app.unmount();
}
