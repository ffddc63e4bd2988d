// Scheduling: one run, or waves (SPEC 4: wave mode is on when a start date and a frequency are
// both set, or waves are required): start date, weeks between waves, how many waves, pause;
// saved by Projects UpdateProjectScheduling; the waves to come with dates and cost from
// ProjectScheduleEstimates.
import { useEffect, useState, type FormEvent } from "react";
import { api } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { Badge, Button, Card, Field, Input, Skeleton, Table } from "../../../components/ui";
import { keyPath, run, useRefreshProject } from "../../../features/projects-editor/data";
import type { TabProps } from "./shared";
import { credits } from "./SubmitBar";

type Estimates = {
  waveMode: boolean;
  costPerWave: number;
  estimatedDays: number | null;
  upcomingTotal?: number;
  waves: { waveNumber: number; scheduleDate: string; estimatedCompletionDate: string | null; scheduled: boolean; charged: boolean; cost: number }[];
};

export function useScheduleEstimates(projectId: number) {
  return useApi<Estimates>(["ProjectScheduleEstimates", projectId], () => api.GET("/api/v1/Projects({key})/ProjectScheduleEstimates", { params: keyPath(projectId) }));
}

export const dateText = (iso: string | null) => (iso ? new Date(`${iso.slice(0, 10)}T00:00:00`).toLocaleDateString("en", { day: "numeric", month: "short", year: "numeric" }) : "—");

export function SchedulingTab({ project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const estimates = useScheduleEstimates(project.id);
  const [waves, setWaves] = useState(project.wavesRequired || !!project.scheduleFrequencyWeeks);
  const [start, setStart] = useState(project.scheduleStartDate?.slice(0, 10) ?? "");
  const [freq, setFreq] = useState(project.scheduleFrequencyWeeks ? String(project.scheduleFrequencyWeeks) : "4");
  const [count, setCount] = useState(project.scheduleWavesRequired ? String(project.scheduleWavesRequired) : "3");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setWaves(project.wavesRequired || !!project.scheduleFrequencyWeeks);
    setStart(project.scheduleStartDate?.slice(0, 10) ?? "");
  }, [project.wavesRequired, project.scheduleFrequencyWeeks, project.scheduleStartDate]);

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const body = waves
      ? { scheduleStartDate: start || null, scheduleFrequencyWeeks: Number(freq), wavesRequired: true, scheduleWavesRequired: Number(count) }
      : { scheduleStartDate: start || null, scheduleFrequencyWeeks: null, wavesRequired: false, scheduleWavesRequired: null };
    const r = await run(api.POST("/api/v1/Projects({key})/UpdateProjectScheduling", { params: keyPath(project.id), body }), ["Schedule saved"]);
    setBusy(false);
    if (r !== undefined) await refresh();
  }

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[22rem_1fr]">
      <Card title="Schedule">
        <form onSubmit={save} className="space-y-4">
          <fieldset disabled={!editable} className="space-y-4">
            <fieldset>
              <legend className="mb-1.5 text-sm font-medium text-ink-800">Runs</legend>
              <div className="flex gap-2">
                {[
                  { v: false, l: "One run" },
                  { v: true, l: "Waves" },
                ].map((o) => (
                  <label
                    key={o.l}
                    className={`flex-1 cursor-pointer rounded-lg px-3 py-2 text-center text-sm font-medium ring-1 ${waves === o.v ? "bg-brand-50 text-brand-800 ring-brand-400" : "ring-ink-200 hover:bg-ink-50"}`}
                  >
                    <input type="radio" name="wave-mode" className="sr-only" checked={waves === o.v} onChange={() => setWaves(o.v)} />
                    {o.l}
                  </label>
                ))}
              </div>
            </fieldset>
            <Field id="schedule-start" label={waves ? "First wave" : "Start"} hint="Empty: as soon as it is approved.">
              <Input id="schedule-start" type="date" value={start} onChange={(e) => setStart(e.target.value)} />
            </Field>
            {waves ? (
              <div className="grid grid-cols-2 gap-3">
                <Field id="schedule-frequency" label="Weeks between waves">
                  <Input id="schedule-frequency" type="number" min={1} max={104} value={freq} onChange={(e) => setFreq(e.target.value)} required />
                </Field>
                <Field id="schedule-waves" label="Number of waves">
                  <Input id="schedule-waves" type="number" min={1} max={104} value={count} onChange={(e) => setCount(e.target.value)} required />
                </Field>
              </div>
            ) : null}
          </fieldset>
          {editable ? (
            <div className="flex justify-end">
              <Button type="submit" busy={busy}>
                Save schedule
              </Button>
            </div>
          ) : null}
        </form>
      </Card>
      <Card title="Waves" actions={estimates.data?.waveMode ? <Badge tone="blue">Wave mode</Badge> : null}>
        {!estimates.data ? (
          <Skeleton className="h-32" />
        ) : (
          <>
            <p className="mb-3 text-sm text-ink-600">
              {credits(estimates.data.costPerWave)} a wave
              {estimates.data.estimatedDays ? ` · about ${estimates.data.estimatedDays} days to field` : ""}. Each wave is charged when it is scheduled to run.
            </p>
            <Table head={["Wave", "Starts", "Results by", "Credits", ""]} caption="Waves">
              {estimates.data.waves.map((w) => (
                <tr key={w.waveNumber}>
                  <td className="px-4 py-2.5 font-medium">{w.waveNumber}</td>
                  <td className="px-4 py-2.5">{dateText(w.scheduleDate)}</td>
                  <td className="px-4 py-2.5">{dateText(w.estimatedCompletionDate)}</td>
                  <td className="px-4 py-2.5">{w.cost.toLocaleString("en")}</td>
                  <td className="px-4 py-2.5">{w.charged ? <Badge tone="green">Charged</Badge> : w.scheduled ? <Badge tone="blue">Scheduled</Badge> : <Badge>Planned</Badge>}</td>
                </tr>
              ))}
            </Table>
          </>
        )}
      </Card>
    </div>
  );
}
