import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { compiledStandinsDir } from '../../fixtures/lab/install-standins.js';
import { joinWindowsNode } from '../../fixtures/lab/windows-node.js';
import { type RunSummary, readState, runPlan } from '../../src/engine/index.js';
import { type ManifestVars, renderManifestObjects } from '../../src/manifests/index.js';
import { parseInventory, playbooksDir } from '../../src/playbook/index.js';
import { parseTaskFile } from '../../src/playbook/parse-playbook.js';
import { planStepFromTask } from '../../src/playbook/plan-step.js';
import { createPlaybookStepExecutor } from '../../src/playbook/step-executor.js';
import type { RunEvent } from '../../src/types/events.js';
import { CHECK_NAMES, type CheckResult, parseCheckResults } from '../../src/verify/checks.js';
import { testTempDir } from '../helpers/temp.js';
import { CLUSTER_PLAYBOOKS, failures, LAB_FSTAB, labPlanVars, labSsh, runClusterPlays } from './helpers.js';

/**
 * verify.yml on a lab controller prepared by the Linux playbooks, with a Windows node joined
 * through the cluster state (the Windows host simulator's part) and kubemix's Windows flannel +
 * kube-proxy manifests applied. verify runs through the engine as `kubemix up` runs it, and the
 * check results are read back from state.json the way the CLI reads them.
 */

if (!existsSync(join(compiledStandinsDir(), 'kubeadm.js')))
  throw new Error('the lab stand-ins are not compiled: run npm run build first');

const SEED_FSTAB = [
  {
    name: 'seed a swap entry where the lab keeps fstab',
    copy: { content: 'UUID=1234 / ext4 defaults 0 1\n/swap.img none swap sw 0 0\n', dest: LAB_FSTAB },
  },
];

/** Runs the `verify` task of playbooks/cluster on the first controller through the engine. */
async function runVerify(lab: ClusterLab, vars: Record<string, unknown>) {
  const inventory = parseInventory(await readFile(lab.inventoryPath, 'utf8'), lab.inventoryPath);
  const controller = inventory.hosts.find((h) => h.name === vars['first_controller'])!;
  // Only verify.yml is loaded (as loadClusterPlaybooks loads each file), so another task file
  // being edited cannot break this test.
  const file = join(CLUSTER_PLAYBOOKS, 'verify.yml');
  const steps = parseTaskFile(await readFile(file, 'utf8'), file).map((task) => planStepFromTask(task));
  const clusterDir = await testTempDir('verify-cluster');
  const events: RunEvent[] = [];
  const summary: RunSummary = await runPlan({
    plan: {
      cluster: 'lab',
      hosts: [controller],
      tasks: [
        {
          name: 'verify',
          description: 'win-webserver and the Windows guide checks',
          needs: [],
          hosts: [controller.name],
          steps,
          implemented: true,
        },
      ],
      // As build-plan sets it: templates are found under <playbook_dir>/templates.
      vars: { ...vars, playbook_dir: playbooksDir() },
    },
    clusterDir,
    transports: (host) => labSsh(lab, host),
    executeStep: createPlaybookStepExecutor(),
    render: (value) => value,
    onEvent: (e) => events.push(e),
  });
  const state = await readState(clusterDir);
  const outputs = state?.outputs[controller.name] ?? {};
  return { summary, events, outputs, results: parseCheckResults(outputs) };
}

const byName = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.check, r]));

describe('verify.yml on a lab cluster: 1 Linux controller + 1 Windows node', () => {
  let lab: ClusterLab;
  let vars: Record<string, unknown>;
  let windowsAddress: string;

  beforeAll(async () => {
    lab = await startClusterLab({ count: 1 });
    vars = await labPlanVars(lab, ['lab-01']);
    const prepared = await runClusterPlays(
      lab,
      [
        { file: 'seed fstab', tasks: SEED_FSTAB, hosts: ['lab-01'] },
        { file: 'prepare-linux.yml', hosts: ['lab-01'] },
        { file: 'init-control-plane.yml', hosts: ['lab-01'] },
        { file: 'install-flannel.yml', hosts: ['lab-01'] },
      ],
      vars,
    );
    expect(failures(prepared)).toBe('');
    // An address on the lab's subnet that no lab host uses: the stand-ins answer for it, nothing is sent.
    windowsAddress = lab.hosts[0]!.address.replace(/\.\d+$/, '.200');
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('all six checks pass on a healthy cluster, and the results land in state.json', async () => {
    await joinWindowsNode(lab.cluster, {
      name: 'win-01',
      address: windowsAddress,
      manifestVars: vars as unknown as ManifestVars,
    });
    const { summary, results, outputs, events } = await runVerify(lab, vars);
    const log = JSON.stringify(events);
    expect(summary.failures, log.slice(-3000)).toEqual([]);
    expect(summary.status).toBe('succeeded');
    expect(results.map((r) => [r.check, r.ok])).toEqual(CHECK_NAMES.map((name) => [name, true]));
    const checks = byName(results);
    const pods = (await lab.cluster.pods('default')).filter((p) =>
      p.metadata.name.startsWith('win-webserver-'),
    );
    const ips = pods.map((p) => (p['status'] as { podIP: string }).podIP);
    expect(checks['node-to-pod']!.detail).toBe(ips.map((ip) => `${ip}: HTTP 200`).join('; '));
    expect(checks['node-to-pod']!.command).toBe(
      ips.map((ip) => `curl -sS --max-time 10 http://${ip}/`).join('; '),
    );
    expect(checks['pod-to-pod']!.detail).toBe(`${pods[0]!.metadata.name} -> ${ips[1]}: HTTP 200`);
    expect(checks['pod-to-pod']!.command).toContain(
      `-- powershell -NoProfile -Command "(Invoke-WebRequest -UseBasicParsing -Uri http://${ips[1]}).StatusCode"`,
    );
    const svc = (await lab.cluster.getObject('Service', 'default', 'win-webserver'))!['spec'] as {
      clusterIP: string;
      ports: { nodePort: number }[];
    };
    expect(checks['service-vip']!.detail).toBe(`${svc.clusterIP}:80: HTTP 200 from pod ${ips[0]}`);
    expect(checks['service-dns']!.detail).toMatch(
      /-> win-webserver\.default\.svc\.cluster\.local: HTTP 200$/,
    );
    expect(checks['nodeport']!.detail).toBe(
      `${windowsAddress}:${svc.ports[0]!.nodePort}: HTTP 200 from pod ${ips[0]}`,
    );
    expect(checks['outbound']!.detail).toMatch(/-> https:\/\/www\.microsoft\.com: HTTP 200$/);
    // Each stored output is the check's single JSON line.
    expect(String(outputs['check_outbound'])).toMatch(/^\{"check": "outbound", "ok": true, .*\}$/);
  });

  it('a Windows flannel VNI of 4097 breaks node-to-pod; the task fails naming the failed checks', async () => {
    const mismatched = { ...(vars as unknown as ManifestVars), flannel_vni: 4097 };
    await joinWindowsNode(lab.cluster, {
      name: 'win-02',
      address: windowsAddress.replace(/\.200$/, '.201'),
      manifestVars: mismatched,
    });
    await lab.cluster.deleteObject('Node', undefined, 'win-01');
    const { summary, results } = await runVerify(lab, vars);
    expect(summary.status).toBe('failed');
    const checks = byName(results);
    expect(checks['node-to-pod']).toMatchObject({ ok: false });
    expect(checks['node-to-pod']!.detail).toMatch(
      /: curl: \(28\) Connection timed out after 10000 milliseconds/,
    );
    // Both pods share the Windows node (no overlay between them); NodePort rides the underlay.
    expect(results.filter((r) => !r.ok).map((r) => r.check)).toEqual([
      'node-to-pod',
      'service-vip',
      'service-dns',
      'outbound',
    ]);
    expect(checks['service-dns']!.detail).toMatch(
      /Invoke-WebRequest : The remote name could not be resolved: 'win-webserver\.default\.svc\.cluster\.local'$/,
    );
    expect(summary.failures).toHaveLength(1);
    const failure = summary.failures[0]!;
    expect(failure).toMatchObject({ task: 'verify', host: 'lab-01', step: 'Every check passed' });
    expect(failure.stderrTail).toBe(
      'verify failed: node-to-pod, service-vip, service-dns, outbound (4 of 6 checks failed)',
    );
  });

  it('pods that never start: every check is still reported, and the message says the rollout did not finish', async () => {
    // VNI 1 on Windows: flanneld refuses it there, the HNS network never exists, pods stay ContainerCreating.
    const invalid = { ...(vars as unknown as ManifestVars), flannel_vni: 1, flannel_port: 8472 };
    for (const manifest of ['kube-flannel-windows', 'kube-proxy-windows'] as const)
      for (const o of renderManifestObjects(manifest, invalid)) await lab.cluster.applyObject(o);
    const { summary, results } = await runVerify(lab, { ...vars, verify_rollout_timeout: '1s' });
    expect(results.map((r) => [r.check, r.ok, r.detail])).toEqual(
      CHECK_NAMES.map((name) => [
        name,
        false,
        ['service-vip', 'nodeport'].includes(name)
          ? expect.stringMatching(/curl: \((7|28)\) /)
          : 'no Ready win-webserver pod',
      ]),
    );
    expect(summary.failures[0]!.stderrTail).toBe(
      'verify failed: node-to-pod, pod-to-pod, service-vip, service-dns, nodeport, outbound (6 of 6 checks failed; rollout not finished: win-webserver-2022)',
    );
  });
});
