/** The only writers to the terminal. Everything kubemix prints goes through here. */

let stdoutClosed = false;
// `kubemix up --log-format json | head` closes our stdout early: stop writing, keep running.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') stdoutClosed = true;
  else throw error;
});

export const out = (text: string): void => {
  if (stdoutClosed) return;
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};
export const err = (text: string): void => {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
};

/** True when the CLI should draw a live task list: a terminal, and not under CI. */
export function isInteractive(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env['CI'];
}
