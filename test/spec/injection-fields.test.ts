import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { validateSpecInput } from '../../src/spec/validate.js';
import { injectionCorpus } from '../helpers/injection-corpus.js';

// Every string field of the spec, with every corpus value: the spec is refused with one issue at
// exactly that field (and a message that never repeats the value), or accepted with the value
// kept as written. Which fields may accept what is stated here from the documented rules, not
// read from the implementation: local paths take anything but control characters and template
// markers, `vars` anything but NUL, every other field (names, addresses, users, versions,
// flags, enums) refuses all of the corpus.

// biome-ignore lint/suspicious/noExplicitAny: specs edited as loose JSON, as a user edits YAML
type Json = Record<string, any>;

const baseStatic = (): Json => ({
  name: 'lab',
  kubernetes: { version: '1.36.4' },
  network: { podCIDR: '10.244.0.0/16', serviceCIDR: '10.96.0.0/12', flannel: { backend: 'vxlan' } },
  provider: {
    type: 'static',
    knownHosts: 'known_hosts',
    hosts: [
      { name: 'cp1', address: '192.0.2.10', group: 'control-plane' },
      { name: 'win1', address: '192.0.2.20', group: 'windows' },
    ],
  },
  nodes: {
    controlPlane: {
      count: 1,
      endpoint: '192.0.2.10:6443',
      credentials: { user: 'root', privateKey: { file: 'id_ed25519' }, passphrase: { env: 'KEY_PASS' } },
      kubeletExtraArgs: ['--max-pods=40'],
    },
    workers: [
      {
        name: 'windows',
        os: 'windows',
        windowsVersion: '2022',
        count: 1,
        credentials: { user: 'Administrator', password: { env: 'WIN_PASS' } },
        kubeletExtraArgs: ['--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS'],
      },
    ],
  },
  versions: { containerd: '1.7.22' },
  artifacts: { dir: 'artifacts' },
  vars: { fstab_path: '/etc/fstab' },
});

const baseLibvirt = (): Json => ({
  name: 'lab',
  provider: {
    type: 'libvirt',
    uri: 'qemu:///system',
    images: {
      linux: { source: '/var/lib/libvirt/images/debian.qcow2' },
      windows: { source: '/var/lib/libvirt/images/win.iso' },
      virtio: { source: '/var/lib/libvirt/images/virtio-win.iso' },
    },
    storagePool: 'kubemix',
    dataDir: '/var/lib/kubemix',
    hypervisors: [{ name: 'hv1', address: 'hv1.lab.example', uri: 'qemu:///system' }],
    network: { cidr: '10.0.0.0/24' },
  },
});

const baseEc2 = (): Json => ({
  name: 'lab',
  provider: {
    type: 'ec2',
    region: 'eu-west-1',
    operatorCidr: '203.0.113.0/24',
    vpcId: 'vpc-0123456789abcdef0',
    subnetId: 'subnet-01234567',
    images: { linux: 'ami-0123456789abcdef0', windows: 'ssm:/aws/service/ami-windows-latest/x' },
    endpoint: 'http://127.0.0.1:5000',
  },
  nodes: {
    controlPlane: { count: 1, instanceType: 't3.large' },
    workers: [{ name: 'windows', os: 'windows', count: 1, instanceType: 'm5.large' }],
  },
});

type Rule = 'path' | 'plain-path' | 'vars' | 'kubelet-flag' | 'refuse';
interface Field {
  name: string;
  base: () => Json;
  path: (string | number)[];
  rule: Rule;
}

const f = (base: () => Json, path: (string | number)[], rule: Rule = 'refuse'): Field => ({
  name: `${base.name} ${path.join('.')}`,
  base,
  path,
  rule,
});
const FIELDS: Field[] = [
  f(baseStatic, ['apiVersion']),
  f(baseStatic, ['name']),
  f(baseStatic, ['kubernetes', 'version']),
  f(baseStatic, ['network', 'podCIDR']),
  f(baseStatic, ['network', 'serviceCIDR']),
  f(baseStatic, ['network', 'flannel', 'backend']),
  f(baseStatic, ['provider', 'knownHosts'], 'path'),
  f(baseStatic, ['provider', 'hosts', 0, 'name']),
  f(baseStatic, ['provider', 'hosts', 0, 'address']),
  f(baseStatic, ['provider', 'hosts', 0, 'group']),
  f(baseStatic, ['provider', 'hosts', 0, 'connection']),
  f(baseStatic, ['nodes', 'controlPlane', 'endpoint']),
  f(baseStatic, ['nodes', 'controlPlane', 'connection']),
  f(baseStatic, ['nodes', 'controlPlane', 'credentials', 'user']),
  f(baseStatic, ['nodes', 'controlPlane', 'credentials', 'privateKey', 'file'], 'path'),
  f(baseStatic, ['nodes', 'controlPlane', 'credentials', 'passphrase', 'env']),
  f(baseStatic, ['nodes', 'controlPlane', 'kubeletExtraArgs', 0], 'kubelet-flag'),
  f(baseStatic, ['nodes', 'workers', 0, 'name']),
  f(baseStatic, ['nodes', 'workers', 0, 'os']),
  f(baseStatic, ['nodes', 'workers', 0, 'windowsVersion']),
  f(baseStatic, ['nodes', 'workers', 0, 'connection']),
  f(baseStatic, ['nodes', 'workers', 0, 'credentials', 'user']),
  f(baseStatic, ['nodes', 'workers', 0, 'credentials', 'password', 'env']),
  f(baseStatic, ['nodes', 'workers', 0, 'kubeletExtraArgs', 0], 'kubelet-flag'),
  f(baseStatic, ['versions', 'containerd']),
  f(baseStatic, ['artifacts', 'dir'], 'path'),
  f(baseStatic, ['vars', 'fstab_path'], 'vars'),
  f(baseLibvirt, ['provider', 'uri'], 'path'),
  f(baseLibvirt, ['provider', 'images', 'linux', 'source'], 'path'),
  f(baseLibvirt, ['provider', 'images', 'windows', 'source'], 'path'),
  f(baseLibvirt, ['provider', 'images', 'virtio', 'source'], 'path'),
  f(baseLibvirt, ['provider', 'storagePool']),
  f(baseLibvirt, ['provider', 'dataDir'], 'plain-path'),
  f(baseLibvirt, ['provider', 'hypervisors', 0, 'name']),
  f(baseLibvirt, ['provider', 'hypervisors', 0, 'address']),
  f(baseLibvirt, ['provider', 'hypervisors', 0, 'uri'], 'path'),
  f(baseLibvirt, ['provider', 'network', 'cidr']),
  f(baseEc2, ['provider', 'region']),
  f(baseEc2, ['provider', 'operatorCidr']),
  f(baseEc2, ['provider', 'vpcId']),
  f(baseEc2, ['provider', 'subnetId']),
  f(baseEc2, ['provider', 'images', 'linux']),
  f(baseEc2, ['provider', 'images', 'windows']),
  f(baseEc2, ['provider', 'endpoint']),
  f(baseEc2, ['nodes', 'controlPlane', 'instanceType']),
  f(baseEc2, ['nodes', 'workers', 0, 'instanceType']),
];

/** Keys are fields too: a `vars` or `versions` key with the payload. */
const KEY_FIELDS: { base: () => Json; parent: string[] }[] = [
  { base: baseStatic, parent: ['vars'] },
  { base: baseStatic, parent: ['versions'] },
];

function set(spec: Json, path: (string | number)[], value: unknown): Json {
  let node = spec;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)!] = value;
  return spec;
}

function get(spec: Json, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], spec);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule under test
const CONTROL = /[\u0000-\u001f\u007f]/;
const accepts = (rule: Rule, value: string) =>
  rule === 'vars'
    ? !value.includes('\0')
    : rule === 'path'
      ? !CONTROL.test(value) && !/\{[{%#]/.test(value)
      : // libvirt's dataDir: an absolute path without spaces, quotes or backslashes (it names files
        // on the hypervisors, where it is always quoted; see README).
        rule === 'plain-path'
        ? /^\/[^\s'"\\]*$/.test(value)
        : // A kubelet flag alone (`--help` of the corpus) is a boolean flag set to "true", passed
          // as one literal kubeadm {name, value} pair (src/spec/kubelet-args.ts); nothing else is.
          rule === 'kubelet-flag'
          ? /^--[a-z]+(?:-[a-z]+)*$/.test(value)
          : false;

const corpus = injectionCorpus('/tmp/kmx-never-created-canary');

function outcome(input: Json): { ok: true; spec: Json } | { ok: false; issues: SpecError['issues'] } {
  try {
    return { ok: true, spec: validateSpecInput(input, { file: 'spec.yaml' }) as unknown as Json };
  } catch (error) {
    if (error instanceof SpecError) return { ok: false, issues: error.issues };
    throw error;
  }
}

describe('spec fields over the injection corpus', () => {
  it('the base specs are valid', () => {
    for (const base of [baseStatic, baseLibvirt, baseEc2]) expect(outcome(base()).ok).toBe(true);
  });

  describe.each(FIELDS)('$name', (field) => {
    it.each(corpus)('$name', ({ value }) => {
      const result = outcome(set(field.base(), field.path, value));
      if (accepts(field.rule, value)) {
        expect(result.ok).toBe(true);
        if (result.ok) expect(get(result.spec, field.path)).toBe(value);
        return;
      }
      expect(result.ok).toBe(false);
      if (result.ok) return;
      // Renaming a group also orphans what refers to it; the field itself is always named first.
      expect(result.issues[0]?.path).toBe(field.path.join('.'));
      if (result.issues.length > 1) expect(field.path.at(-1)).toMatch(/^(name|group)$/);
      for (const issue of result.issues) {
        expect(issue.message).not.toMatch(/[\r\n]/);
        if (field.path.includes('credentials')) expect(issue.message).not.toContain(value);
      }
    });
  });

  describe.each(KEY_FIELDS)('keys of $parent', ({ base, parent }) => {
    it.each(corpus)('$name', ({ value }) => {
      const spec = base();
      set(spec, [...parent, value], '1.0.0');
      const result = outcome(spec);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues.map((i) => i.path)).toEqual([[...parent, value].join('.')]);
    });
  });
});
