import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors/index.js';
import { runCli, tempHome } from './run-cli.js';

// What a user sees for a mistyped or missing flag: one line naming flags, exit 2.
describe('messages name flags', () => {
  it('Windows workers without the ISO: the flags to give, not option paths', async () => {
    const result = await runCli(['plan', 'k8s-libvirt-1-2-1', '--windows-workers', '1'], {
      home: tempHome(),
    });
    expect(result.exitCode).toBe(EXIT.badInput);
    expect(result.stderr.trim().split('\n')).toEqual([
      'k8s-libvirt-1-2-1: --windows-iso: is required for Windows workers: the Windows Server evaluation ISO (--windows-iso PATH|URL with --windows-iso-sha256); kubemix never downloads one unasked',
    ]);
  });

  it('a digest without its image names both flags', async () => {
    const result = await runCli(['plan', 'k8s-libvirt-1-1-1', '--virtio-iso-sha256', 'a'.repeat(64)], {
      home: tempHome(),
    });
    expect(result.exitCode).toBe(EXIT.badInput);
    expect(result.stderr.trim()).toBe(
      'k8s-libvirt-1-1-1: --virtio-iso-sha256: is given without --virtio-iso (the image it verifies)',
    );
  });

  it('an unknown flag: kubemix own line with the flag it looks like', async () => {
    const result = await runCli(['plan', 'k8s-libvirt-1-2-1', '--windows-worker', '1'], { home: tempHome() });
    expect(result.exitCode).toBe(EXIT.badInput);
    expect(result.stderr.trim().split('\n')).toEqual([
      'kubemix plan: unknown option --windows-worker (did you mean --windows-workers?)',
    ]);
  });

  it('an unknown command: the command it looks like', async () => {
    const result = await runCli(['pln', 'k8s-libvirt-1-1-1'], { home: tempHome() });
    expect(result.exitCode).toBe(EXIT.badInput);
    expect(result.stderr.trim()).toMatch(
      /^kubemix: unknown command "pln" \(did you mean plan\? commands: plan, /,
    );
  });
});
