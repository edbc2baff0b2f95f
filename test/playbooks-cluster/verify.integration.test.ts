import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterLab, startClusterLab } from '../../fixtures/lab/cluster-lab.js';
import { compiledStandinsDir } from '../../fixtures/lab/install-standins.js';
import { joinWindowsNode } from '../../fixtures/lab/windows-node.js';
import { runClusterPlan } from '../../src/cluster/run-plan.js';
import { type RunSummary, readState } from '../../src/engine/index.js';
import { type ManifestVars, renderManifestObjects } from '../../src/manifests/index.js';
import { parseInventory, playbooksDir } from '../../src/playbook/index.js';
import { parseTaskFile } from '../../src/playbook/parse-playbook.js';
import { planStepFromTask } from '../../src/playbook/plan-step.js';
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
  const summary: RunSummary = await runClusterPlan({
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
    // No Linux worker: the Linux workload (netexec endpoint + client) runs on the controller.
    const all = await lab.cluster.pods('default');
    const pod = (prefix: string) =>
      all
        .filter((p) => p.metadata.name.startsWith(prefix))
        .map((p) => ({
          name: p.metadata.name,
          ip: (p['status'] as { podIP: string }).podIP,
          node: (p['spec'] as { nodeName: string }).nodeName,
        }));
    const win = pod('win-webserver-');
    const [endpoint] = pod('linux-netexec-').filter((p) => !p.name.startsWith('linux-netexec-client-'));
    const [client] = pod('linux-netexec-client-');
    expect([endpoint!.node, client!.node, ...win.map((w) => w.node)]).toEqual([
      'lab-01',
      'lab-01',
      'win-01',
      'win-01',
    ]);
    const at = (p: { name: string; ip: string; node: string }) => `${p.name} on ${p.node} (${p.ip})`;
    expect(checks['node-to-pod']!.detail).toBe(
      [
        `${at(endpoint!)}: hostname ${endpoint!.name}`,
        `${at(client!)}: hostname ${client!.name}`,
        ...win.map((w) => `${at(w)}: HTTP 200`),
      ].join('; '),
    );
    expect(checks['node-to-pod']!.command).toBe(
      [
        `curl -sS --max-time 10 'http://${endpoint!.ip}:8080/hostname'`,
        `curl -sS --max-time 10 'http://${client!.ip}:8080/hostname'`,
        ...win.map((w) => `curl -sS --max-time 10 'http://${w.ip}/'`),
      ].join('; '),
    );
    // Pod to pod both ways between Linux and Windows (over the VXLAN), and Windows to Windows.
    expect(checks['pod-to-pod']!.detail).toBe(
      [
        `${client!.name} (lab-01) -> ${at(endpoint!)}: hostname ${endpoint!.name}`,
        ...win.map((w) => `${client!.name} (lab-01) -> ${at(w)}: HTTP answer from pod IP ${w.ip}`),
        `${win[0]!.name} (win-01) -> ${at(endpoint!)}: hostname ${endpoint!.name}`,
        `${win[0]!.name} (win-01) -> ${at(win[1]!)}: HTTP 200`,
      ].join('; '),
    );
    expect(checks['pod-to-pod']!.command).toContain(
      `curl -sS --max-time 10 'http://${client!.ip}:8080/dial?request=hostname&protocol=http&host=${win[0]!.ip}&port=80&tries=1'`,
    );
    expect(checks['pod-to-pod']!.command).toContain(
      `-- powershell -NoProfile -Command "(Invoke-WebRequest -UseBasicParsing -Uri 'http://${endpoint!.ip}:8080/hostname').Content"`,
    );
    const spec = async (name: string) =>
      (await lab.cluster.getObject('Service', 'default', name))!['spec'] as {
        clusterIP: string;
        ports: { nodePort: number }[];
      };
    const [linuxSvc, winSvc] = [await spec('linux-netexec'), await spec('win-webserver')];
    expect(checks['service-vip']!.detail).toBe(
      `linux-netexec ${linuxSvc.clusterIP}:80: hostname ${endpoint!.name}; win-webserver ${winSvc.clusterIP}:80: HTTP 200 from pod ${win[0]!.ip}`,
    );
    expect(checks['service-dns']!.detail).toBe(
      `${client!.name} (lab-01) -> linux-netexec.default.svc.cluster.local:80: hostname ${endpoint!.name}; ${win[0]!.name} (win-01) -> win-webserver.default.svc.cluster.local: HTTP 200`,
    );
    expect(checks['nodeport']!.detail).toBe(
      `linux-netexec lab-01 ${lab.hosts[0]!.address}:${linuxSvc.ports[0]!.nodePort}: hostname ${endpoint!.name}; win-webserver win-01 ${windowsAddress}:${winSvc.ports[0]!.nodePort}: HTTP 200 from pod ${win[0]!.ip}`,
    );
    expect(checks['outbound']!.detail).toBe(
      `${client!.name} (lab-01) -> www.microsoft.com:443: connected; ${win[0]!.name} (win-01) -> https://www.microsoft.com: HTTP 200`,
    );
    // Each stored output is the check's single JSON line.
    expect(String(outputs['check_outbound'])).toMatch(/^\{"check": "outbound", "ok": true, .*\}$/);
  });

  it('takes the outbound URL literally: quoted for the shell and for PowerShell, its host and port for agnhost connect', async () => {
    const url = "https://www.microsoft.com/?q=it's;Get-Process";
    const { summary, results } = await runVerify(lab, { ...vars, verify_outbound_url: url });
    expect(summary.status).toBe('succeeded');
    const outbound = byName(results)['outbound']!;
    expect(outbound.detail).toMatch(
      /-> www\.microsoft\.com:443: connected; .* -> https:\/\/www\.microsoft\.com\/\?q=it's;Get-Process: HTTP 200$/,
    );
    expect(outbound.command).toContain(
      `-- powershell -NoProfile -Command "(Invoke-WebRequest -UseBasicParsing -Uri 'https://www.microsoft.com/?q=it''s;Get-Process').StatusCode"`,
    );
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
    // The Windows pods share their node (no overlay between them); NodePort rides the underlay.
    // Pod to pod between the Linux client and the Windows pods crosses the broken VXLAN.
    expect(results.filter((r) => !r.ok).map((r) => r.check)).toEqual([
      'node-to-pod',
      'pod-to-pod',
      'service-vip',
      'service-dns',
      'outbound',
    ]);
    expect(checks['pod-to-pod']!.detail).toMatch(
      /-> win-webserver-\S+ on win-02 \((\S+)\): Get "http:\/\/\1:80\/hostname": dial tcp \1:80: i\/o timeout \(Client\.Timeout exceeded while awaiting headers\)/,
    );
    expect(checks['service-dns']!.detail).toMatch(
      /Invoke-WebRequest : The remote name could not be resolved: 'win-webserver\.default\.svc\.cluster\.local'$/,
    );
    expect(summary.failures).toHaveLength(1);
    const failure = summary.failures[0]!;
    expect(failure).toMatchObject({ task: 'verify', host: 'lab-01', step: 'Every check passed' });
    expect(failure.stderrTail).toBe(
      'verify failed: node-to-pod, pod-to-pod, service-vip, service-dns, outbound (5 of 6 checks failed)',
    );
  });

  it('pods that never start: every check is still reported, and the message says the rollout did not finish', async () => {
    // VNI 1 on Windows: flanneld refuses it there, the HNS network never exists, pods stay ContainerCreating.
    const invalid = { ...(vars as unknown as ManifestVars), flannel_vni: 1, flannel_port: 8472 };
    for (const manifest of ['kube-flannel-windows', 'kube-proxy-windows'] as const)
      for (const o of renderManifestObjects(manifest, invalid)) await lab.cluster.applyObject(o);
    const { summary, results } = await runVerify(lab, { ...vars, verify_rollout_timeout: '1s' });
    // Every check fails first on the missing Windows pods; the Linux parts are still reported.
    expect(results.map((r) => [r.check, r.ok, r.detail])).toEqual(
      CHECK_NAMES.map((name) => [
        name,
        false,
        expect.stringMatching(/^no Ready win-webserver pod; linux-netexec/),
      ]),
    );
    expect(summary.failures[0]!.stderrTail).toBe(
      'verify failed: node-to-pod, pod-to-pod, service-vip, service-dns, nodeport, outbound (6 of 6 checks failed; rollout not finished: win-webserver-2022)',
    );
  });
});
