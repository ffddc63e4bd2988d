// Scheduling: the waves per market, 'upcoming' by default (SPEC 4) or past, and the scheduling edit
// (start date, frequency, waves, pause) through UpdateProjectScheduling.
import { useState } from "react";
import { api, unwrap, type Schemas } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { handleError } from "../../../api/errors";
import { toast } from "../../../components/toast";
import { Badge, Button, Field, Input, Skeleton, cx } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { useCanWrite } from "../../../features/access";

type State = Schemas["SchedulingState"];

export default function SchedulingPanel({ onChanged }: { onChanged: () => void }) {
  // Only what the role can do is offered (a Viewer or a shared reader reads).
  const canWrite = useCanWrite();
  const { projectId } = useResults();
  const { data, mutate } = useApi(["SchedulingState", projectId], () => api.GET("/api/v1/Projects({key})/SchedulingState", { params: { path: { key: String(projectId) } } }));
  const [view, setView] = useState<"upcoming" | "past">("upcoming");
  const [editing, setEditing] = useState(false);
  if (!data) return <Skeleton className="h-40" />;
  return (
    <div className="space-y-4 text-sm">
      <dl className="grid grid-cols-2 gap-2">
        <div className="rounded-lg bg-ink-50 p-2">
          <dt className="text-xs text-ink-500">Waves run</dt>
          <dd className="font-semibold">{data.wavesRun}</dd>
        </div>
        <div className="rounded-lg bg-ink-50 p-2">
          <dt className="text-xs text-ink-500">Upcoming</dt>
          <dd className="font-semibold">{data.wavesUpcoming}</dd>
        </div>
        <div className="rounded-lg bg-ink-50 p-2">
          <dt className="text-xs text-ink-500">Next wave</dt>
          <dd className="font-semibold">{data.nextScheduleDate ? new Date(data.nextScheduleDate).toLocaleDateString() : "—"}</dd>
        </div>
        <div className="rounded-lg bg-ink-50 p-2">
          <dt className="text-xs text-ink-500">Last run cost</dt>
          <dd className="font-semibold">{data.lastRunCost ?? "—"} credits</dd>
        </div>
      </dl>
      {data.schedulePause ? <Badge tone="amber">Paused</Badge> : null}
      <div role="tablist" aria-label="Waves" className="flex gap-1 rounded-lg bg-ink-100 p-1">
        {(["upcoming", "past"] as const).map((v) => (
          <button
            key={v}
            role="tab"
            type="button"
            aria-selected={view === v}
            onClick={() => setView(v)}
            className={cx("flex-1 rounded-md px-2 py-1 text-sm font-medium capitalize", view === v ? "bg-white shadow-sm" : "text-ink-600")}
          >
            {v}
          </button>
        ))}
      </div>
      {data.regions.map((r) => {
        const waves = view === "upcoming" ? r.upcoming : r.past;
        return (
          <section key={r.regionId}>
            <h3 className="mb-1 font-semibold text-ink-900">{r.regionName}</h3>
            {!waves.length ? (
              <p className="text-ink-500">No {view} waves.</p>
            ) : (
              <ul className="divide-y divide-ink-100 rounded-lg border border-ink-200">
                {waves.map((w) => (
                  <li key={w.id} className="flex items-center justify-between gap-2 px-3 py-2">
                    <span>
                      {w.waveNumber ? `Wave ${w.waveNumber}` : w.week ? `Week ${w.week}` : "Run"} · {w.scheduleDate ? new Date(w.scheduleDate).toLocaleDateString() : "unscheduled"}
                    </span>
                    <span className="text-xs text-ink-500">
                      {w.isCustomerPanel ? "Customer" : "Ideally"}
                      {w.launchState ? ` · ${w.launchState}` : ""}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
      {editing ? (
        <ScheduleEdit
          state={data}
          onDone={(changed) => {
            setEditing(false);
            if (changed) {
              onChanged();
              void mutate();
            }
          }}
        />
      ) : canWrite ? (
        <Button variant="secondary" onClick={() => setEditing(true)}>
          Edit schedule
        </Button>
      ) : null}
    </div>
  );
}

function ScheduleEdit({ state, onDone }: { state: State; onDone: (changed: boolean) => void }) {
  const { projectId } = useResults();
  const [start, setStart] = useState(state.scheduleStartDate?.slice(0, 10) ?? "");
  const [freq, setFreq] = useState(state.scheduleFrequencyWeeks?.toString() ?? "");
  const [waves, setWaves] = useState(state.scheduleWavesRequired?.toString() ?? "");
  const [pause, setPause] = useState(state.schedulePause);
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    try {
      await unwrap(
        api.POST("/api/v1/Projects({key})/UpdateProjectScheduling", {
          params: { path: { key: String(projectId) } },
          body: {
            scheduleStartDate: start || null,
            scheduleFrequencyWeeks: freq ? Number(freq) : null,
            scheduleWavesRequired: waves ? Number(waves) : null,
            wavesRequired: state.wavesRequired,
            schedulePause: pause,
          },
        }),
      );
      toast.success("Schedule updated");
      onDone(true);
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="space-y-3 rounded-lg border border-ink-200 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h3 className="font-semibold text-ink-900">Edit schedule</h3>
      <Field id="sched-start" label="Start date">
        <Input id="sched-start" type="date" value={start} onChange={(e) => setStart(e.target.value)} />
      </Field>
      <Field id="sched-freq" label="Every (weeks)">
        <Input id="sched-freq" type="number" min={1} max={52} value={freq} onChange={(e) => setFreq(e.target.value)} />
      </Field>
      <Field id="sched-waves" label="Number of waves">
        <Input id="sched-waves" type="number" min={1} max={104} value={waves} onChange={(e) => setWaves(e.target.value)} />
      </Field>
      <label className="flex items-center gap-2">
        <input type="checkbox" className="accent-brand-600" checked={pause} onChange={(e) => setPause(e.target.checked)} /> Pause scheduling
      </label>
      <div className="flex gap-2">
        <Button type="submit" busy={busy}>
          Save schedule
        </Button>
        <Button variant="ghost" onClick={() => onDone(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
