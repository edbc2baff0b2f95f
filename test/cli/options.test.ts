import { describe, expect, it } from 'vitest';
import { parseCommandArgs, SHORT_FORM_OPTIONS } from '../../src/cli/options.js';
import { UsageError } from '../../src/errors/index.js';
import { SHORT_FORM_FLAGS } from '../../src/spec/index.js';

const options = {
  ...SHORT_FORM_OPTIONS,
  inventory: { type: 'string', short: 'i' },
  check: { type: 'boolean', short: 'C' },
  'history-keep': { type: 'string' },
} as const;

/** The UsageError parseCommandArgs throws for argv (exit 2 is UsageError's code). */
function refusal(argv: string[]): string {
  try {
    parseCommandArgs('plan', argv, options);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('parseCommandArgs messages', () => {
  it('refuses an unknown flag in one line of its own words, with the flag it looks like', () => {
    expect(refusal(['k8s-libvirt-1-2-1', '--windows-worker', '1'])).toBe(
      'kubemix plan: unknown option --windows-worker (did you mean --windows-workers?)',
    );
    expect(refusal(['--frobnicate'])).toBe(
      'kubemix plan: unknown option --frobnicate (see kubemix plan --help)',
    );
  });

  it('names the flag whose value is missing, by its long name too when given short', () => {
    expect(refusal(['--name'])).toBe('kubemix plan: --name needs a value');
    expect(refusal(['x', '-i'])).toBe('kubemix plan: -i (--inventory) needs a value');
  });

  it('says how to give a value that starts with a dash, and that a switch takes none', () => {
    expect(refusal(['--history-keep', '-3'])).toBe(
      'kubemix plan: --history-keep needs a value; one that starts with "-" is written --history-keep=-3',
    );
    expect(refusal(['--check=yes'])).toBe('kubemix plan: --check is a switch and takes no value (got "yes")');
  });
});

describe('short-form flags', () => {
  it('are the flags the commands accept', () => {
    for (const flag of Object.values(SHORT_FORM_FLAGS))
      expect(Object.keys(SHORT_FORM_OPTIONS)).toContain(flag.slice(2));
    expect(Object.keys(SHORT_FORM_OPTIONS)).toHaveLength(Object.keys(SHORT_FORM_FLAGS).length);
  });
});
