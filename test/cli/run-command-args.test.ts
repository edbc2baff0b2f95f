import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseRunCommand, specArguments } from '../../src/cli/commands/run-command-args.js';
import { UsageError } from '../../src/errors/index.js';

// The one reader of the options up, down and ci share: each command's own options come along,
// and bad values of the shared ones are bad input (exit 2) naming the flag, for every command.
const downOptions = { 'purge-images': { type: 'boolean' } } as const;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseRunCommand', () => {
  it('reads the shared flags and the command’s own options and positionals', () => {
    const args = parseRunCommand(
      'down',
      ['k8s-libvirt-1-1-1', '-f', '3', '--log-format', 'json', '--purge-images', '--hypervisor', 'h1'],
      downOptions,
      'help text',
    );
    expect(args?.flags).toEqual({ forks: 3, logFormat: 'json' });
    expect(args?.positionals).toEqual(['k8s-libvirt-1-1-1']);
    expect(args?.values['purge-images']).toBe(true);
    expect(args?.values.hypervisor).toEqual(['h1']);
  });

  it('defaults to plain lines and leaves --forks to the engine when not given', () => {
    const args = parseRunCommand('up', ['spec.yaml'], { from: { type: 'string' } }, 'help text');
    expect(args?.flags).toEqual({ logFormat: 'text' });
    expect(Object.hasOwn(args?.flags ?? {}, 'forks')).toBe(false);
  });

  it.each([
    [['spec.yaml', '--forks', '0'], '--forks must be a whole number >= 1, got "0"'],
    [['spec.yaml', '--log-format', 'xml'], '--log-format must be one of text, json, got "xml"'],
    [['spec.yaml', '--purge-images'], 'kubemix ci: unknown option --purge-images (see kubemix ci --help)'],
  ])('refuses %j with exit 2 naming the flag', (argv, message) => {
    const read = () => parseRunCommand('ci', argv, { out: { type: 'string' } }, 'help text');
    expect(read).toThrow(UsageError);
    expect(read).toThrow(message);
  });

  it('prints the help for --help and tells the command to stop', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    expect(parseRunCommand('down', ['--help'], downOptions, 'Usage: kubemix down')).toBeUndefined();
    expect(written).toEqual(['Usage: kubemix down\n']);
  });
});

describe('specArguments', () => {
  it('repeats the spec and the cluster-selecting options, shell-quoted, and nothing else', () => {
    expect(
      specArguments("my spec's.yaml", {
        hypervisor: ['a', 'b c'],
        'cluster-dir': '/tmp/x',
        forks: '3',
        'log-format': 'json',
      }),
    ).toEqual([
      `'my spec'\\''s.yaml'`,
      '--hypervisor',
      `'a'`,
      '--hypervisor',
      `'b c'`,
      '--cluster-dir',
      `'/tmp/x'`,
    ]);
  });
});
