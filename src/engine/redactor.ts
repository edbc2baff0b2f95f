import type { CommandResult } from '../types/command-result.js';
import type { RunEvent } from '../types/events.js';
import { secretFragments } from './secret-fragments.js';

/** What replaces a secret value in events, messages and results. */
export const REDACTED = '***';

/**
 * Hides secret values (join tokens, certificate keys, passwords...) in everything a run emits,
 * for `kubemix up` and `kubemix run` alike: every event goes through {@link Redactor.event}
 * before a listener sees it. What a no_log step registers is learnt with {@link Redactor.add},
 * by its lines and credential-like words (see secretFragments), so a command built from one line
 * or one word of it is redacted too.
 */
export class Redactor {
  private secrets: string[] = [];
  /** Whole values (passwords) with the pattern that finds them standing alone. */
  private wholes: { value: string; pattern: RegExp }[] = [];

  /** Learns the secret fragments of a value (a string, or a registered result walked recursively). */
  add(value: unknown): void {
    let added = false;
    for (const fragment of secretFragments(value)) {
      if (this.secrets.includes(fragment)) continue;
      this.secrets.push(fragment);
      added = true;
    }
    // Longest first, so a secret that contains another is hidden whole.
    if (added) this.secrets.sort((a, b) => b.length - a.length);
  }

  /**
   * Learns a secret that is known as a whole value, such as a password from an inventory: its
   * fragments as {@link add} does, and the exact value wherever it stands alone (between
   * non-word characters), however short. A 3-letter password cannot be blanked inside every
   * longer word without garbling the output, but `password=abc` or a line `abc` is hidden.
   */
  addWhole(value: string): void {
    if (value === '') return;
    this.add(value);
    if (this.wholes.some((w) => w.value === value)) return;
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.wholes.push({ value, pattern: new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, 'g') });
  }

  /** True when `value` (walked like {@link add}) contains a known secret anywhere. */
  mentions(value: unknown): boolean {
    if (this.empty) return false;
    const texts: string[] = [];
    collectStrings(value, texts);
    return texts.some(
      (text) =>
        this.secrets.some((secret) => text.includes(secret)) ||
        this.wholes.some((whole) => new RegExp(whole.pattern.source).test(text)),
    );
  }

  /** True when no secret is known. */
  get empty(): boolean {
    return this.secrets.length === 0 && this.wholes.length === 0;
  }

  /** The text with every known secret replaced by `***`. */
  text(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const whole of this.wholes)
      if (out.includes(whole.value)) out = out.replace(whole.pattern, REDACTED);
    return out;
  }

  /** A copy of a command result with command, stdout and stderr redacted. */
  result(result: CommandResult): CommandResult {
    if (this.empty) return result;
    return {
      ...result,
      command: this.text(result.command),
      stdout: this.text(result.stdout),
      stderr: this.text(result.stderr),
    };
  }

  /** A copy of an event with every string that could carry a secret redacted. */
  event(event: RunEvent): RunEvent {
    if (this.empty) return event;
    switch (event.type) {
      case 'step-output':
        return { ...event, data: this.text(event.data) };
      case 'step-retry':
      case 'step-end':
        return { ...event, result: this.result(event.result) };
      case 'host-unreachable':
      case 'step-progress':
        return { ...event, message: this.text(event.message) };
      case 'connection':
        return event.message === undefined ? event : { ...event, message: this.text(event.message) };
      case 'task-end':
        return event.error === undefined ? event : { ...event, error: this.text(event.error) };
      case 'run-end':
        return event.message === undefined ? event : { ...event, message: this.text(event.message) };
      default:
        return event;
    }
  }
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) collectStrings(item, into);
}
