import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPort } from '../helpers/tcp-port.js';
import { testTempDirSync } from '../helpers/temp.js';
import { MIXED_SHORT_FORM, runCli, tempHome } from './run-cli.js';

const localSpec = 'fixtures/cli/local-static.yaml';
const stackTrace = /^\s+at .+\(.+:\d+:\d+\)$/m;

describe('kubemix plan', () => {
  it('plans the Kubeinit short form with nothing else given', async () => {
    // A wide terminal, so the summary's lists stay on one line (how they wrap when narrower:
    // test/cli/plan-summary.test.ts and plan-output.integration.test.ts).
    const result = await runCli(['plan', 'k8s-libvirt-1-1-1'], { home: tempHome(), env: { COLUMNS: '200' } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Plan for cluster k8s-libvirt-1-1-1');
    expect(result.stdout).toContain('hypervisor-01');
    // The summary's task table: where wait-for-hosts runs and what it waits for.
    expect(result.stdout).toMatch(/^ {2}wait-for-hosts +controller-01, linux-workers-01 +create-hosts /m);
  });

  it('prints the plan as JSON data with -o json', async () => {
    const result = await runCli(['plan', ...MIXED_SHORT_FORM, '-o', 'json'], {
      home: tempHome(),
    });
    expect(result.exitCode).toBe(0);
    const plan = JSON.parse(result.stdout) as { tasks: { name: string; needs: string[] }[] };
    const prepWindows = plan.tasks.find((t) => t.name === 'prepare-windows');
    expect(prepWindows?.needs).toEqual(['wait-for-hosts']);
  });

  it('reports every spec problem on its own line with file:line:col, exit 2, no stack trace', async () => {
    const result = await runCli(['plan', 'fixtures/specs/invalid/several-problems.yaml'], {
      home: tempHome(),
    });
    expect(result.exitCode).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines)
      expect(line).toMatch(/^fixtures\/specs\/invalid\/several-problems\.yaml:\d+:\d+: /);
    expect(result.stderr).not.toMatch(stackTrace);
  });

  it('refuses a spec whose YAML alias is inside the node it names: one line, exit 2, no stack trace', async () => {
    const result = await runCli(['plan', 'fixtures/specs/invalid/alias-cycle.yaml'], { home: tempHome() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'fixtures/specs/invalid/alias-cycle.yaml:6:9: YAML error: the alias *v is inside the node it names (a cycle)',
    ]);
    expect(result.stdout).toBe('');
  });

  it('refuses windows-container-networking 0.3.1 at plan time in one line naming versions.windows-cni, exit 2', async () => {
    const result = await runCli(['plan', 'fixtures/specs/invalid/windows-cni-0.3.1.yaml'], {
      home: tempHome(),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^fixtures\/specs\/invalid\/windows-cni-0\.3\.1\.yaml:14:16: versions\.windows-cni: cannot be installed: microsoft\/windows-container-networking v0\.3\.1: its asset was renamed and rebuilt by hand after the release .*use 0\.3\.2 or later$/,
      ),
    ]);
    expect(result.stdout).toBe('');
  });

  it('refuses a Windows kube-proxy image outside the skew policy in one line naming the field, exit 2', async () => {
    const result = await runCli(['plan', 'fixtures/specs/invalid/windows-kube-proxy-newer.yaml'], {
      home: tempHome(),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      "fixtures/specs/invalid/windows-kube-proxy-newer.yaml:16:29: versions.windows-kube-proxy-image: kube-proxy 1.36.0 is newer than the cluster's Kubernetes 1.35.2: kube-proxy must not be newer than kube-apiserver (https://kubernetes.io/releases/version-skew-policy/#kube-proxy)",
    ]);
    expect(result.stdout).toBe('');
  });

  it('decides the Kubernetes version at plan time: one that cannot be built is exit 2 before anything exists', async () => {
    const dir = testTempDirSync('cli-version');
    const spec = join(dir, 'future.yaml');
    writeFileSync(spec, 'name: future\nprovider:\n  type: libvirt\nkubernetes:\n  version: "1.38.0"\n');
    const home = tempHome();
    for (const command of ['plan', 'up']) {
      const result = await runCli([command, spec], { home });
      expect([command, result.exitCode]).toEqual([command, 2]);
      expect(result.stderr.trim().split('\n')).toEqual([
        `${spec}:5:12: kubernetes.version: Kubernetes 1.38.0 is newer than the newest version kubemix builds, 1.37 (supported: 1.36 to 1.37): its containerd minimum, kubeadm images and package repository are not known to kubemix yet`,
      ]);
      expect(result.stdout).toBe('');
    }
    // `up` made no cluster directory, no key, no state.
    expect(existsSync(join(home, 'clusters'))).toBe(false);
    const old = await runCli(['plan', 'k8s-libvirt-1-1-1', '--kubernetes-version', '1.35.9'], { home });
    expect(old.exitCode).toBe(2);
    expect(old.stderr).toContain('Kubernetes 1.35.9 is older than the oldest version kubemix builds, 1.36');
  });

  it('plans a pre-release of a supported minor with a warning, from the prerelease package repository', async () => {
    const result = await runCli(
      ['plan', 'k8s-libvirt-1-1-1', '--kubernetes-version', '1.37.0-rc.1', '-o', 'json'],
      { home: tempHome() },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stderr.trim()).toBe(
      "kubemix: warning: Kubernetes 1.37.0-rc.1 is a pre-release: its packages come from pkgs.k8s.io's prerelease repository and Windows images (kube-proxy) may not be published for it",
    );
    const plan = JSON.parse(result.stdout) as { vars: Record<string, unknown> };
    expect(plan.vars).toMatchObject({
      kubernetes_version: '1.37.0-rc.1',
      kubernetes_package_channel: 'prerelease',
      kubernetes_package_version: '1.37.0~rc.1',
    });
  });

  it('names a missing spec file in one line', async () => {
    const result = await runCli(['plan', 'no-such-spec.yaml'], { home: tempHome() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('no-such-spec.yaml');
  });

  it('rejects unknown flags with exit 2', async () => {
    const result = await runCli(['plan', 'k8s-libvirt-1-1-1', '--frobnicate'], { home: tempHome() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--frobnicate');
    expect(result.stderr).not.toMatch(stackTrace);
  });
});

describe('kubemix schema and help', () => {
  it('prints a JSON Schema for editors', async () => {
    const result = await runCli(['schema'], { home: tempHome() });
    expect(result.exitCode).toBe(0);
    const schema = JSON.parse(result.stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['name', 'provider', 'nodes', 'network']),
    );
  });

  it.each(['plan', 'up', 'down', 'status', 'schema', 'run', 'verify', 'artifacts'])(
    'has --help for %s',
    async (command) => {
      const result = await runCli([command, '--help'], { home: tempHome() });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(`Usage: kubemix ${command}`);
    },
  );

  it('exits 2 on an unknown command', async () => {
    const result = await runCli(['frobnicate'], { home: tempHome() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('unknown command');
  });
});

describe('kubemix up / status on a local static cluster', () => {
  // The local fixture's only node is this machine: tests never run the cluster playbooks on it,
  // so every `up` here stops at wait-for-hosts or earlier.
  it('runs the provider preflight and host checks, and reports them in status', async () => {
    const home = tempHome();
    const result = await runCli(['up', localSpec, '--stop-after', 'wait-for-hosts'], { home });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('DONE  prepare-provider');
    expect(result.stdout).toContain('OK    wait-for-hosts node-1: identify host');
    expect(result.stdout).not.toContain('START prepare-linux');
    const status = await runCli(['status', localSpec], { home });
    expect(status.stdout).toMatch(/wait-for-hosts\s+done/);
    expect(status.stdout).toMatch(/prepare-linux\s+pending/);
  });

  it('stops after a named task, then resumes without redoing finished tasks', async () => {
    const home = tempHome();
    const first = await runCli(['up', localSpec, '--stop-after', 'prepare-provider'], { home });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain('run stopped');
    expect(first.stdout).not.toContain('START wait-for-hosts');
    const second = await runCli(['up', localSpec, '--stop-after', 'wait-for-hosts'], { home });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain('SKIP  prepare-provider (already-done)');
    expect(second.stdout).toContain('DONE  wait-for-hosts');
    const redo = await runCli(
      ['up', localSpec, '--from', 'prepare-provider', '--stop-after', 'prepare-provider'],
      { home },
    );
    expect(redo.stdout).toContain('DONE  prepare-provider');
  });

  it('refuses an unknown task name for --stop-before with the valid names', async () => {
    const result = await runCli(['up', localSpec, '--stop-before', 'prepare-windows'], { home: tempHome() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('prepare-windows');
    expect(result.stderr).toContain('wait-for-hosts');
  });

  it('writes JSON lines with --log-format json and an event log in the cluster directory', async () => {
    const home = tempHome();
    const result = await runCli(['up', localSpec, '--log-format', 'json', '--stop-after', 'wait-for-hosts'], {
      home,
    });
    expect(result.exitCode).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(events[0]?.type).toBe('run-start');
    expect(events.at(-1)?.type).toBe('run-end');
    const runsDir = join(home, 'clusters', 'local-demo', 'runs');
    expect(existsSync(runsDir)).toBe(true);
  });

  it('refuses a second run while another holds the cluster lock', async () => {
    const home = tempHome();
    const clusterDir = join(home, 'clusters', 'local-demo');
    await runCli(['up', localSpec, '--stop-after', 'prepare-provider'], { home });
    // This test process is alive, so a lock naming it belongs to a running kubemix.
    writeFileSync(join(clusterDir, 'lock'), `${process.pid}\n`);
    const result = await runCli(['up', localSpec], { home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('in use by another kubemix run');
    expect(readFileSync(join(clusterDir, 'lock'), 'utf8').trim()).toBe(String(process.pid));
  });

  it('stops running steps on Ctrl-C, records state, releases the lock and exits 130', async () => {
    const home = tempHome();
    const run = runCli(['up', 'fixtures/cli/unreachable-static.yaml'], { home });
    let seen = '';
    await new Promise<void>((resolve) => {
      run.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('START wait-for-hosts')) resolve();
      });
    });
    run.kill('SIGINT');
    const result = await run;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toContain('interrupted');
    const clusterDir = join(home, 'clusters', 'unreachable');
    const state = JSON.parse(readFileSync(join(clusterDir, 'state.json'), 'utf8')) as {
      tasks: Record<string, { status: string }>;
      lastRun: { status: string };
    };
    expect(state.tasks['prepare-provider']?.status).toBe('done');
    expect(state.tasks['wait-for-hosts']?.status).not.toBe('done');
    expect(state.lastRun.status).toBe('interrupted');
    expect(existsSync(join(clusterDir, 'lock'))).toBe(false);
  });

  it('refuses down while an up holds the lock', async () => {
    const home = tempHome();
    const clusterDir = join(home, 'clusters', 'local-demo');
    await runCli(['up', localSpec, '--stop-after', 'prepare-provider'], { home });
    writeFileSync(join(clusterDir, 'lock'), `${process.pid}\n`);
    const locked = await runCli(['down', localSpec], { home });
    expect(locked.exitCode).toBe(1);
    expect(locked.stderr).toContain('in use by another kubemix run');
    expect(existsSync(join(clusterDir, 'teardown'))).toBe(false);
  });
});

describe('kubemix run', () => {
  it('runs a playbook on local inventory hosts and prints a PLAY RECAP', async () => {
    const work = testTempDirSync('run');
    const { port, close } = await openPort('');
    try {
      const result = await runCli(
        [
          'run',
          'fixtures/playbooks/every-keyword.yml',
          '-i',
          'fixtures/inventories/local.yml',
          '-e',
          `work_dir=${work}`,
          '-e',
          `wait_port=${port}`,
        ],
        { home: tempHome() },
      );
      expect(result.stdout).toContain('PLAY RECAP');
      expect(result.stdout).toMatch(/web1\s+: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0/);
      expect(result.exitCode).toBe(0);
    } finally {
      await close();
    }
  });

  it('exits 2 with file:line:col for a broken playbook', async () => {
    const result = await runCli(
      ['run', 'fixtures/playbooks/invalid.yml', '-i', 'fixtures/inventories/local.yml'],
      { home: tempHome() },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/invalid\.yml:\d+:\d+: /);
    expect(result.stderr).not.toMatch(stackTrace);
  });

  it('requires an inventory', async () => {
    const result = await runCli(['run', 'fixtures/playbooks/every-keyword.yml'], { home: tempHome() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('-i INVENTORY is required');
  });
});
