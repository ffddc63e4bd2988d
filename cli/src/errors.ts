// Errors the CLI reports as one line on stderr, with an exit code:
// 1 = usage (bad options), 2 = bad input file.
export const EXIT_OK = 0;
export const EXIT_USAGE = 1;
export const EXIT_INPUT = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: typeof EXIT_USAGE | typeof EXIT_INPUT,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT_USAGE);
export const inputError = (message: string) => new CliError(message, EXIT_INPUT);
