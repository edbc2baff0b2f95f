/** The only writers to the terminal. Everything kubemix prints goes through here. */
export const out = (text: string): void => {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};
export const err = (text: string): void => {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
};

/** True when the CLI should draw a live task list: a terminal, and not under CI. */
export function isInteractive(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env['CI'];
}
