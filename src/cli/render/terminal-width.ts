/** What `plan` and `versions` fit their text to when stdout is neither a terminal nor COLUMNS is set. */
export const DEFAULT_WIDTH = 100;

/**
 * The width to fit text output to: the terminal's columns when stdout is one, else `COLUMNS` (as
 * shells export it, and as a user sets it for a pipe or a file), else {@link DEFAULT_WIDTH}.
 */
export function terminalWidth(
  stdout: { isTTY?: boolean; columns?: number } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): number {
  if (stdout.isTTY && stdout.columns !== undefined && stdout.columns > 0) return stdout.columns;
  const columns = Number(env['COLUMNS']);
  if (Number.isInteger(columns) && columns > 0) return columns;
  return DEFAULT_WIDTH;
}
