// Work a request starts but must not wait for: its duration would tell the caller something (the
// password-reset email of an existing account, the owner's warning of failed sign-ins). The request
// hands the task over and answers; the task runs once the handler has returned. Tasks are tracked
// so shutdown and tests can wait for them, and a failure is logged, never thrown at the caller.

/** Runs a task after the current request has answered. */
export type Defer = (task: () => Promise<void>) => void;

const pending = new Set<Promise<void>>();

export const afterResponse: Defer = (task) => {
  const p: Promise<void> = new Promise<void>((r) => setTimeout(r, 0))
    .then(task)
    .catch((e: unknown) => console.error("[after-response] a deferred task failed:", e instanceof Error ? e.message : e))
    .finally(() => pending.delete(p));
  pending.add(p);
};

/** Resolves once every deferred task (including ones they start) has finished. */
export async function settled(): Promise<void> {
  while (pending.size) await Promise.allSettled([...pending]);
}
