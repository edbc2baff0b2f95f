import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WORKLOAD_PULL_SECONDS, WORKLOAD_START_SECONDS, windowsWorkload } from '../../src/manifests/index.js';
import { playbooksDir } from '../../src/playbook/index.js';
import { renderString } from '../../src/template/index.js';

// verify.yml sizes each win-webserver rollout wait from whether the Windows nodes of that build
// hold the image (the previous step lists the nodes that do not), with a user override.
async function rolloutCommand(vars: Record<string, unknown>): Promise<string> {
  const file = join(playbooksDir(), 'cluster', 'verify.yml');
  const tasks = parse(await readFile(file, 'utf8')) as { name: string; command?: string }[];
  const step = tasks.find((t) => t.name === 'Wait for the win-webserver rollouts');
  expect(step?.command, `${file} has the rollout step`).toBeDefined();
  return renderString(step!.command!, vars);
}

const item = (stdout: string) => ({ item: windowsWorkload('2019'), stdout });

describe("verify's rollout wait", () => {
  it('waits start_seconds when every node of the build holds the image', async () => {
    expect(await rolloutCommand({ item: item('') })).toBe(
      `kubectl --kubeconfig /etc/kubernetes/admin.conf rollout status deployment/win-webserver-2019 --timeout=${WORKLOAD_START_SECONDS}s`,
    );
  });

  it('adds the pull budget when a node still lacks it, or when the nodes could not be read', async () => {
    const expected = `--timeout=${WORKLOAD_START_SECONDS + WORKLOAD_PULL_SECONDS}s`;
    expect(await rolloutCommand({ item: item('win-01') })).toMatch(new RegExp(`${expected}$`));
    expect(await rolloutCommand({ item: item('unknown') })).toMatch(new RegExp(`${expected}$`));
  });

  it('takes the user override as it is', async () => {
    expect(await rolloutCommand({ item: item('win-01'), verify_rollout_timeout: '45m' })).toMatch(
      /--timeout=45m$/,
    );
  });
});
