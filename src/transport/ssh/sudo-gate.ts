/**
 * Watches stderr of a `sudo -S` command (see shell-script `sudoMarkers`): answers sudo's prompt
 * with the password once, lets the task's stdin through only after the command has started,
 * and removes both markers from what the caller sees. A second prompt (wrong password) gets EOF
 * instead, so sudo fails at once rather than waiting.
 */
export class SudoGate {
  private buffer = '';
  private started = false;
  private prompts = 0;
  private readonly prompt: string;
  private readonly startedLine: string;

  constructor(
    markers: { prompt: string; started: string },
    private readonly handlers: {
      /** sudo asked for the password (n = how many times so far). */
      onPrompt: (n: number) => void;
      /** The command is running: its stdin may be written now. */
      onStarted: () => void;
      /** stderr meant for the caller. */
      pass: (data: Buffer) => void;
    },
  ) {
    this.prompt = markers.prompt;
    this.startedLine = `${markers.started}\n`;
  }

  push(data: Buffer): void {
    if (this.started) {
      this.handlers.pass(data);
      return;
    }
    this.buffer += data.toString('utf8');
    for (;;) {
      const at = this.buffer.indexOf(this.prompt);
      if (at < 0) break;
      this.buffer = this.buffer.slice(0, at) + this.buffer.slice(at + this.prompt.length);
      this.prompts++;
      this.handlers.onPrompt(this.prompts);
    }
    const at = this.buffer.indexOf(this.startedLine);
    if (at >= 0) {
      const before = this.buffer.slice(0, at);
      const after = this.buffer.slice(at + this.startedLine.length);
      this.buffer = '';
      this.started = true;
      if (before) this.handlers.pass(Buffer.from(before));
      this.handlers.onStarted();
      if (after) this.handlers.pass(Buffer.from(after));
    }
  }

  /** The stream ended: whatever sudo said goes to the caller. */
  end(): void {
    if (this.buffer) this.handlers.pass(Buffer.from(this.buffer));
    this.buffer = '';
  }
}
