import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ClusterContextOptions, loadClusterContext } from '../../src/cluster/index.js';
import { MIXED_SHORT_FORM, runCli, tempHome } from '../cli/run-cli.js';

// Tests that build plans through the library see exactly what `kubemix plan` (and so `up`) runs:
// the CLI only turns flags into these options.
const cases: { name: string; args: string[]; options: Omit<ClusterContextOptions, 'spec'> }[] = [
  { name: 'a spec file', args: ['fixtures/specs/valid/static-1-1-1-windows.yaml'], options: {} },
  {
    name: 'a short form with flags',
    args: [...MIXED_SHORT_FORM, '--name', 'mixed'],
    options: {
      shortForm: {
        windowsWorkers: 1,
        windowsIso: 'https://isos.example/ws2022.iso',
        windowsIsoSha256: 'a'.repeat(64),
        name: 'mixed',
      },
    },
  },
];

describe('the library plans what kubemix plan prints', () => {
  afterEach(() => vi.unstubAllEnvs());

  it.each(cases)('$name', async ({ args, options }) => {
    const home = tempHome();
    const printed = await runCli(['plan', ...args, '-o', 'json'], { home });
    expect(printed.exitCode).toBe(0);
    vi.stubEnv('KUBEMIX_HOME', home);
    const context = await loadClusterContext({ spec: args[0]!, ...options });
    expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(JSON.stringify(context.upPlan())));
  });
});
