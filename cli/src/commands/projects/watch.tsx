// `ideally projects watch ID`: follows a project until its results are ready. On a terminal an Ink
// view (loaded only here, so other commands start fast); with --json one event per line; piped
// without --json, one plain line per change.
import { idArg } from "../../args.ts";
import { apiError, usageError } from "../../errors.ts";
import { needClient, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "../../../../contracts/labels.ts";
import { surveyStatusName, Watcher, type LiveEvent, type WatchState } from "./watcher.ts";

export interface WatchOptions extends GlobalOptions {
  interval?: string;
}

const line = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);

/** The changing part of the state (what a person or script would want to hear about). */
const digest = (s: WatchState) => JSON.stringify([s.statusCode, s.phase, s.runs.map((r) => [r.complete, r.surveyStatusId]), s.options.map((o) => o.count)]);

export async function runWatch(id: string, o: WatchOptions): Promise<void> {
  const seconds = o.interval === undefined ? 5 : Number(o.interval);
  if (!Number.isFinite(seconds) || seconds < 0.5 || seconds > 3600) throw usageError(`--interval: expected seconds from 0.5 to 3600, got '${o.interval}'`);
  const api = signedIn(o);
  needClient(api);
  const pollMs = seconds * 1000;
  const w = new Watcher(api, Number(idArg(id)), pollMs);
  const ended = new Promise<WatchState>((resolve, reject) => {
    w.onFailure(reject);
    w.on((s) => (s.phase === "ready" || s.phase === "stopped" ? resolve(s) : undefined));
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
      const runs = s.runs.map((r) => `${r.regionName} ${r.complete}/${r.target ?? "?"}`).join(", ");
      process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${s.statusCode} ${statusName(s.statusCode)} (${s.phase})${runs ? `: ${runs}` : ""}\n`);
    });
  }
  let unmount: (() => void) | undefined;
  try {
    await w.start();
    if (!o.json && process.stdout.isTTY) unmount = await drawInk(w);
    // The first state (which may already be final).
    w.emit();
    await ended;
    // The event that ended it may be ahead of the counts: read them once more for the last word.
    await w.refresh().catch(() => undefined);
    const end = w.state;
    w.emit();
    if (o.json) line({ event: "Done", data: end });
    if (end.phase === "stopped") throw apiError(`project ${id} went back to ${end.statusCode} ${statusName(end.statusCode)} (declined or unsubmitted)`);
  } finally {
    w.stop();
    unmount?.();
  }
}

async function drawInk(w: Watcher): Promise<() => void> {
  const [{ render, Box, Text }, React] = await Promise.all([import("ink"), import("react")]);
  const bar = (done: number, total: number | null, width = 28) => {
    if (!total) return "".padEnd(width, "·");
    const f = Math.max(0, Math.min(1, done / total));
    const n = Math.round(f * width);
    return "█".repeat(n) + "░".repeat(width - n);
  };
  const pctOf = (done: number, total: number | null) => (total ? `${Math.min(100, Math.round((done / total) * 100))}%`.padStart(4) : "   –");
  const PHASE: Record<WatchState["phase"], string> = {
    waiting: "waiting for approval and launch",
    fielding: "fielding",
    processing: "processing results",
    ready: "results ready",
    stopped: "stopped",
  };
  function View() {
    const [s, set] = React.useState<WatchState>(w.state);
    React.useEffect(() => w.on((next) => set({ ...next })), []);
    const label = Math.max(12, ...s.runs.map((r) => r.regionName.length + 10), ...s.options.map((o) => Math.min(30, o.conceptText.length)));
    return (
      <Box flexDirection="column" paddingX={1}>
        <Box>
          <Text bold>{`Project ${s.projectId} · ${s.projectName}`}</Text>
        </Box>
        <Box>
          <Text>{"Status  "}</Text>
          <Text color={s.phase === "ready" ? "green" : s.phase === "stopped" ? "red" : "yellow"}>{`${s.statusCode} ${statusName(s.statusCode)}`}</Text>
          <Text dimColor>{`  (${PHASE[s.phase]})`}</Text>
        </Box>
        <Box marginTop={1} flexDirection="column">
          <Text bold>Responses per region</Text>
          {s.runs.length === 0 ? <Text dimColor>no survey run yet</Text> : null}
          {s.runs.map((r) => (
            <Text key={r.surveyRunId}>
              {`${`${r.regionName} ${r.isCustomerPanel ? "(cust)" : "(panel)"}`.padEnd(label)} ${bar(r.complete, r.target)} ${pctOf(r.complete, r.target)} ${String(r.complete).padStart(5)}/${r.target ?? "?"}  ${surveyStatusName(r.surveyStatusId)}`}
            </Text>
          ))}
        </Box>
        <Box marginTop={1} flexDirection="column">
          <Text bold>Responses per test option</Text>
          {s.options.map((o) => (
            <Text key={String(o.testOptionId)}>{`${o.conceptText.slice(0, 30).padEnd(label)} ${bar(o.count, o.target)} ${pctOf(o.count, o.target)} ${String(o.count).padStart(5)}/${o.target ?? "?"}`}</Text>
          ))}
        </Box>
        {Object.keys(s.jobs).length ? (
          <Box marginTop={1} flexDirection="column">
            <Text bold>Jobs</Text>
            {Object.entries(s.jobs).map(([id, j]) => (
              <Text key={id}>{`${id.padEnd(label)} ${bar(j.pct, 100)} ${String(j.pct).padStart(3)}%  ${j.message ?? ""}`}</Text>
            ))}
          </Box>
        ) : null}
        <Box marginTop={1} flexDirection="column">
          {s.recent.map((r, i) => (
            <Text key={i} dimColor>
              {r}
            </Text>
          ))}
          <Text dimColor>{s.phase === "ready" ? "Results are ready: ideally results " + s.projectId : "Ctrl-C stops watching (the project carries on)"}</Text>
        </Box>
      </Box>
    );
  }
  const app = render(<View />, { exitOnCtrlC: true });
  return () => app.unmount();
}
