// Errors the CLI reports as one line on stderr, with an exit code:
// 1 = usage (bad options, an invalid project file, a CSV analyze cannot use), 2 = the API refused
// or failed (or cannot be reached), 3 = authentication (not signed in, wrong password, session
// ended), 7 = the API did not answer within the request timeout (--timeout).
export const EXIT_OK = 0;
export const EXIT_USAGE = 1;
/** A bad input file for analyze: refused like bad options (issue 20: "exit 1 and a one-line reason"). */
export const EXIT_INPUT = 1;
export const EXIT_API = 2;
export const EXIT_AUTH = 3;
// `projects watch` ends in one of these when the results are not ready, so a script can tell them apart.
/** The project went back to Draft (declined or unsubmitted). */
export const EXIT_DECLINED = 4;
/** No new completes for --stall seconds while fielding. */
export const EXIT_STALLED = 5;
/** --timeout passed first. */
export const EXIT_TIMEOUT = 6;

/** The API did not answer a request within the request timeout (net.ts). */
export const EXIT_NO_ANSWER = 7;

export type ExitCode = typeof EXIT_USAGE | typeof EXIT_INPUT | typeof EXIT_API | typeof EXIT_AUTH | typeof EXIT_DECLINED | typeof EXIT_STALLED | typeof EXIT_TIMEOUT | typeof EXIT_NO_ANSWER;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT_USAGE);
export const inputError = (message: string) => new CliError(message, EXIT_INPUT);
export const apiError = (message: string) => new CliError(message, EXIT_API);
export const authError = (message: string) => new CliError(message, EXIT_AUTH);
