import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterState, KubeObject } from '../../fixtures/lab/cluster-state.js';
import { writeStandins } from '../../fixtures/lab/install-standins.js';
import { adminKubeconfig } from '../../fixtures/lab/standins/tools/kubeconfig.js';
import { joinWindowsNode } from '../../fixtures/lab/windows-node.js';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { testTempDir } from '../helpers/temp.js';
import { initialisedState, labManifestVars } from './helpers.js';

/**
 * The curl and kubectl exec stand-ins as child processes on a fake controller host (cp1),
 * answering from a mixed lab cluster: what verify.yml's checks run.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const WIN_IWR = (url: string) => `(Invoke-WebRequest -UseBasicParsing -Uri ${url}).StatusCode`;

describe('verify stand-ins: curl and kubectl exec against the reachability model', () => {
  let state: ClusterState;
  let run: (program: string, args: string[]) => Promise<Run>;
  let kubectl: (...args: string[]) => Promise<Run>;
  let winPods: KubeObject[];
  const podIp = (p: KubeObject) => (p['status'] as { podIP: string }).podIP;

  beforeAll(async () => {
    const created = await initialisedState();
    state = created.state;
    for (const o of renderManifestObjects('kube-flannel', labManifestVars())) await state.applyObject(o);
    await joinWindowsNode(state, { name: 'win1', address: '10.233.1.20', manifestVars: labManifestVars() });
    // No Linux worker: verify's Linux workload runs on cp1.
    for (const name of ['runtimeclasses', 'win-webserver'] as const)
      for (const o of renderManifestObjects(name, labManifestVars())) await state.applyObject(o);
    for (const o of renderManifestObjects('linux-netexec', labManifestVars(4096, 4789, 0)))
      await state.applyObject(o);
    winPods = (await state.pods('default')).filter((p) => p.metadata.name.startsWith('win-webserver-'));

    const root = await testTempDir('verify-host');
    const bin = join(root, 'bin');
    await writeStandins({ dir: bin, stateDir: state.dir, root, nodeName: 'cp1', address: '10.233.1.2' });
    const kubeconfig = join(root, 'admin.conf');
    await writeFile(kubeconfig, adminKubeconfig((await state.cluster())!));
    run = (program, args) =>
      new Promise((resolve) => {
        execFile(join(bin, program), args, (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    kubectl = (...args) => run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
  });

  it('kubectl get answers the jsonpath queries verify.yml sends', async () => {
    expect(winPods.map((p) => (p['status'] as { phase: string }).phase)).toEqual(['Running', 'Running']);
    const ips = await kubectl(
      'get',
      'pods',
      '-l',
      'app=win-webserver',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    );
    expect(ips).toMatchObject({ code: 0, stderr: '' });
    expect(ips.stdout).toBe(winPods.map((p) => `${p.metadata.name} ${podIp(p)} True\n`).join(''));
    const svc = await kubectl(
      'get',
      'svc',
      'win-webserver',
      '-o',
      'jsonpath={.spec.clusterIP} {.spec.ports[0].nodePort}',
    );
    expect(svc.stdout).toMatch(/^10\.96\.\d+\.\d+ (3[0-2]\d{3})$/);
    const node = await kubectl(
      'get',
      'nodes',
      '-l',
      'kubernetes.io/os=windows',
      '-o',
      'jsonpath={.items[*].status.addresses[?(@.type=="InternalIP")].address}',
    );
    expect(node.stdout).toBe('10.233.1.20');
    const ep = await kubectl('get', 'endpoints', 'win-webserver');
    expect(ep.stdout).toContain(winPods.map((p) => `${podIp(p)}:80`).join(','));
  });

  it('curl on the controller reaches a Windows pod, and stays offline for the internet', async () => {
    const ip = podIp(winPods[0]!);
    const ok = await run('curl', ['-sS', '--max-time', '10', `http://${ip}/`]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toContain(`pod IP: ${ip}`);
    const code = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', `http://${ip}`]);
    expect(code).toMatchObject({ code: 0, stdout: '200' });
    const offline = await run('curl', ['-fsSL', 'https://www.microsoft.com']);
    expect(offline).toEqual({
      code: 6,
      stdout: '',
      stderr: 'curl: (6) Could not resolve host: www.microsoft.com\n',
    });
    const refused = await run('curl', ['-sS', `http://${ip}:8080`]);
    expect(refused).toMatchObject({
      code: 7,
      stderr: `curl: (7) Failed to connect to ${ip} port 8080 after 0 ms: Couldn't connect to server\n`,
    });
  });

  it('kubectl exec runs Invoke-WebRequest in a Windows pod: pod to pod, DNS name, outbound', async () => {
    const [a, b] = winPods;
    const exec = (script: string) =>
      kubectl('exec', a!.metadata.name, '--', 'powershell', '-NoProfile', '-Command', script);
    expect(await exec(WIN_IWR(`http://${podIp(b!)}`))).toEqual({ code: 0, stdout: '200\r\n', stderr: '' });
    expect(await exec(WIN_IWR('http://win-webserver.default.svc.cluster.local'))).toMatchObject({
      code: 0,
      stdout: '200\r\n',
    });
    expect(await exec(WIN_IWR('https://www.microsoft.com'))).toMatchObject({ code: 0, stdout: '200\r\n' });
    const content = await exec(`(Invoke-WebRequest -UseBasicParsing -Uri http://${podIp(b!)}).Content`);
    expect(content.stdout).toContain(`pod IP: ${podIp(b!)}`);
    const curl = await kubectl(
      'exec',
      a!.metadata.name,
      '-c',
      'windowswebserver',
      '--',
      'curl.exe',
      '-s',
      `http://${podIp(b!)}`,
    );
    expect(curl).toMatchObject({ code: 0 });
  });

  it('kubectl exec refuses what it does not simulate, and what a real cluster refuses', async () => {
    const name = winPods[0]!.metadata.name;
    const cmd = await kubectl('exec', name, '--', 'cmd', '/c', 'dir');
    expect(cmd.code).toBe(126);
    expect(cmd.stderr).toMatch(/^not simulated: cmd \/c dir .*\ncommand terminated with exit code 126\n$/);
    const script = await kubectl('exec', name, '--', 'powershell', '-Command', 'Get-Process');
    expect(script.code).toBe(126);
    expect(script.stderr).toMatch(/^not simulated: powershell -Command Get-Process/);
    expect(await kubectl('exec', name, 'powershell')).toMatchObject({
      code: 1,
      stderr: 'error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\n',
    });
    expect(await kubectl('exec', 'nope', '--', 'curl', 'http://x')).toMatchObject({
      code: 1,
      stderr: 'Error from server (NotFound): pods "nope" not found\n',
    });
    const coredns = (await state.pods('kube-system')).find((p) => p.metadata.name.startsWith('coredns-'))!;
    const linux = await kubectl(
      'exec',
      '-n',
      'kube-system',
      coredns.metadata.name,
      '--',
      'powershell',
      '-Command',
      WIN_IWR('http://x'),
    );
    expect(linux.code).toBe(126);
    expect(linux.stderr).toContain('exec: "powershell": executable file not found in $PATH');
  });

  it('kubectl exec runs agnhost connect in the agnhost image, with its exit codes and lines', async () => {
    const pods = await state.pods('default');
    const client = pods.find((p) => p.metadata.name.startsWith('linux-netexec-client-'))!;
    const endpoint = pods.find((p) => p.metadata.name.startsWith('linux-netexec-') && p !== client)!;
    const connect = (dest: string) =>
      kubectl('exec', client.metadata.name, '--', '/agnhost', 'connect', dest, '--timeout=5s');
    expect(await connect(`${podIp(endpoint)}:8080`)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await connect('www.microsoft.com:443')).toEqual({ code: 0, stdout: '', stderr: '' });
    // A Windows pod over the VXLAN, on win-webserver's port.
    expect(await connect(`${podIp(winPods[0]!)}:80`)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await connect(`${podIp(endpoint)}:9999`)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'REFUSED\ncommand terminated with exit code 1\n',
    });
    expect(await connect('nope.default.svc.cluster.local:80')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'DNS: lookup nope.default.svc.cluster.local on 10.96.0.10:53: no such host\ncommand terminated with exit code 1\n',
    });
    // curl is in the image (its Dockerfile installs it); other programs are not simulated.
    const curl = await kubectl(
      'exec',
      client.metadata.name,
      '--',
      'curl',
      '-s',
      `http://${podIp(endpoint)}:8080/hostname`,
    );
    expect(curl).toEqual({ code: 0, stdout: endpoint.metadata.name, stderr: '' });
    const sh = await kubectl('exec', client.metadata.name, '--', 'sh', '-c', 'true');
    expect(sh.code).toBe(126);
    expect(sh.stderr).toMatch(/^not simulated: sh -c true \(the lab models \/agnhost connect and curl/);
    // In a container of an image the lab does not know, nothing is simulated.
    const coredns = (await state.pods('kube-system')).find((p) => p.metadata.name.startsWith('coredns-'))!;
    const other = await kubectl('exec', '-n', 'kube-system', coredns.metadata.name, '--', 'curl', 'http://x');
    expect(other.code).toBe(126);
    expect(other.stderr).toMatch(
      /^not simulated: curl http:\/\/x \(the lab models exec only in agnhost containers/,
    );
  });

  it('Invoke-WebRequest fails on an HTTP error status, as .NET does, reaching netexec from a Windows pod', async () => {
    const endpoint = (await state.pods('default')).find(
      (p) =>
        p.metadata.name.startsWith('linux-netexec-') && !p.metadata.name.startsWith('linux-netexec-client-'),
    )!;
    const exec = (script: string) =>
      kubectl('exec', winPods[0]!.metadata.name, '--', 'powershell', '-NoProfile', '-Command', script);
    const hostname = await exec(
      `(Invoke-WebRequest -UseBasicParsing -Uri http://${podIp(endpoint)}:8080/hostname).Content`,
    );
    expect(hostname).toEqual({ code: 0, stdout: `${endpoint.metadata.name}\r\n`, stderr: '' });
    const notFound = await exec(
      `(Invoke-WebRequest -UseBasicParsing -Uri 'http://${podIp(endpoint)}:8080/echo?msg=x&code=404').StatusCode`,
    );
    expect(notFound.code).toBe(1);
    expect(notFound.stderr.split('\r\n')[0]).toBe(
      'Invoke-WebRequest : The remote server returned an error: (404) Not Found.',
    );
  });

  it('a failing Invoke-WebRequest prints the PowerShell error record and exits 1 through kubectl', async () => {
    const [a] = winPods;
    expect(await state.deleteObject('Deployment', 'kube-system', 'coredns')).toBe(true);
    const script = WIN_IWR('http://win-webserver.default.svc.cluster.local');
    const r = await kubectl('exec', a!.metadata.name, '--', 'powershell', '-NoProfile', '-Command', script);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split(/\r?\n/);
    expect(lines[0]).toBe(
      "Invoke-WebRequest : The remote name could not be resolved: 'win-webserver.default.svc.cluster.local'",
    );
    expect(lines[1]).toBe('At line:1 char:2');
    expect(lines[2]).toBe(`+ ${script}`);
    expect(lines.at(-2)).toBe('command terminated with exit code 1');
  });
});
