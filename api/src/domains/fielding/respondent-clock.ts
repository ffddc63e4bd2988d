// The simulated panel's clock (docs/decisions/9001). The panel's people answer through the
// respondent routes in process, a request per page, far faster than people: each request carries
// the time its simulated respondent reaches it (a person spends some 20 seconds a page), so the
// session's start and end, and the length the quality checks judge (speeders), are the
// respondent's and not the process's. The time is kept beside the Request object itself, which only
// code in this process can hold: a request from the network is never in this map, so nobody
// outside can set a session's clock.
const at = new WeakMap<Request, Date>();

/** The request of a simulated respondent, reaching the survey at `time`. */
export function atTime(req: Request, time: Date): Request {
  at.set(req, time);
  return req;
}

/** The simulated respondent's time of this request, or null (every request from the network). */
export function respondentTime(req: Request): Date | null {
  return at.get(req) ?? null;
}
