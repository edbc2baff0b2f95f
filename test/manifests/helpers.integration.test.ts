import { describe, expect, it } from 'vitest';
import { renderManifestObjects } from '../../src/manifests/index.js';
import { DEFAULT_KUBERNETES, OLDEST_TESTED_KUBERNETES } from '../helpers/kubernetes-test-versions.js';
import { embeddedPowerShell, parsePowerShell } from '../helpers/parse-powershell.js';
import { validateManifestObjects } from '../helpers/validate-manifests.js';
import { DEFAULT_VARS } from './manifest-vars.js';

// The static checks are only worth something if they fail on broken input.

describe('validateManifestObjects rejects what the API server would reject', () => {
  const daemonSet = () =>
    structuredClone(renderManifestObjects('kube-flannel', DEFAULT_VARS).find((o) => o.kind === 'DaemonSet')!);
  const windowsDaemonSet = () =>
    structuredClone(
      renderManifestObjects('kube-flannel-windows', DEFAULT_VARS).find((o) => o.kind === 'DaemonSet')!,
    );
  type Pod = { containers: Record<string, unknown>[]; hostNetwork?: boolean; volumes: unknown[] };
  const podOf = (obj: Record<string, unknown>) => (obj['spec'] as { template: { spec: Pod } }).template.spec;

  it('accepts the unmodified object', () => {
    expect(validateManifestObjects([daemonSet()])).toEqual([]);
  });

  it('a wrong type (containerPort as a string) is reported with its path', () => {
    const ds = daemonSet();
    podOf(ds).containers[0]!['ports'] = [{ containerPort: 'eighty' }];
    expect(validateManifestObjects([ds])).toContainEqual({
      object: 'DaemonSet kube-flannel/kube-flannel-ds',
      path: '/spec/template/spec/containers/0/ports/0/containerPort',
      message: 'got string, want integer',
    });
  });

  it('a missing required field (the container name) is reported', () => {
    const ds = daemonSet();
    delete podOf(ds).containers[0]!['name'];
    const problems = validateManifestObjects([ds]);
    expect(problems).toContainEqual({
      object: 'DaemonSet kube-flannel/kube-flannel-ds',
      path: '/spec/template/spec/containers/0',
      message: "missing property 'name'",
    });
  });

  it('a DaemonSet without a selector is reported', () => {
    const ds = daemonSet();
    delete (ds['spec'] as Record<string, unknown>)['selector'];
    expect(validateManifestObjects([ds]).some((p) => /selector/.test(p.message))).toBe(true);
  });

  it('an unknown kind is a failure, not a skip', () => {
    expect(
      validateManifestObjects([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }]),
    ).toEqual([
      {
        object: 'Widget w',
        path: '',
        message: `unknown apiVersion/kind example.com/v1/Widget (no schema in Kubernetes v${DEFAULT_KUBERNETES})`,
      },
    ]);
  });

  // kubernetes-models' validate() accepted these: its schemas allow unknown properties.
  it('an unknown field (a mistyped nodeSelector) is reported where it is, as kubeconform -strict does', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { nodeSelectr: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'busybox' }] },
    };
    expect(validateManifestObjects([pod])).toEqual([
      { object: 'Pod default/p', path: '/spec', message: "additional properties 'nodeSelectr' not allowed" },
    ]);
    const ds = daemonSet();
    podOf(ds).containers[0]!['imagePullPolic'] = 'Always';
    expect(validateManifestObjects([ds])).toEqual([
      {
        object: 'DaemonSet kube-flannel/kube-flannel-ds',
        path: '/spec/template/spec/containers/0',
        message: "additional properties 'imagePullPolic' not allowed",
      },
    ]);
  });

  it("checks against the given release's schemas, and says how to build ones that are missing", () => {
    expect(
      validateManifestObjects([daemonSet()], { kubernetesVersion: `v${OLDEST_TESTED_KUBERNETES}` }),
    ).toEqual([]);
    expect(() => validateManifestObjects([daemonSet()], { kubernetesVersion: '1.9.99' })).toThrow(
      /of Kubernetes v1\.9\.99 is not in .*: run scripts\/kubernetes-schemas\.sh 1\.9\.99/,
    );
  });

  it('API-server rules: bad name, selector not matching the template, undeclared volume, HostProcess without hostNetwork', () => {
    const ds = windowsDaemonSet();
    ds.metadata.name = 'Kube_Flannel';
    (ds['spec'] as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels['app'] =
      'other';
    podOf(ds).volumes = [];
    podOf(ds).hostNetwork = false;
    const messages = validateManifestObjects([ds]).map((p) => p.message);
    expect(messages).toEqual([
      '"Kube_Flannel" is not a lowercase RFC 1123 subdomain',
      'selector app=other does not match the template labels',
      'container "kube-flannel" mounts undeclared volume "flannel-windows-cfg"',
      'HostProcess pods must set hostNetwork: true',
    ]);
  });
});

describe('parsePowerShell rejects broken scripts', () => {
  it('accepts a correct script', async () => {
    expect(await parsePowerShell('$x = 1\nif ($x -eq 1) { Write-Host "one $x" }\n')).toEqual([]);
  });

  it('a missing closing parenthesis is reported with its line', async () => {
    const errors = await parsePowerShell('$a = 1\nif ($a -eq 1 {\n  Write-Host "x"\n}\n');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.line).toBeLessThanOrEqual(2);
  });

  it('an unterminated string is reported', async () => {
    expect((await parsePowerShell('$ok = 1\n$y = "unterminated\n')).length).toBeGreaterThan(0);
  });

  it('a here-string whose terminator is indented (a YAML indentation slip) is reported', async () => {
    expect((await parsePowerShell('$r = @"\n{"a": 1}\n  "@\nWrite-Host $r\n')).length).toBeGreaterThan(0);
  });

  it('a real run.ps1 with one closing brace removed is reported', async () => {
    const script = embeddedPowerShell(renderManifestObjects('kube-proxy-windows', DEFAULT_VARS))[0]!.source;
    expect(await parsePowerShell(script)).toEqual([]);
    const lines = script.split('\n');
    const closing = lines.findIndex((line) => line.trim() === '}');
    lines.splice(closing, 1);
    const errors = await parsePowerShell(lines.join('\n'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
  });
});
