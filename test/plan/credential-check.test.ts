import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretRefError } from '../../src/errors/index.js';
import {
  type CredentialLookup,
  credentialProblemLine,
  hostsConnectedBy,
  requireUsableCredentials,
  unusableCredentials,
} from '../../src/plan/credential-check.js';
import { plannedHosts } from '../../src/plan/hosts.js';
import { buildPlan } from '../../src/plan/index.js';
import { loadClusterPlaybooks, playbooksDir } from '../../src/playbook/cluster-playbooks.js';
import { toInventoryHost } from '../../src/playbook/inventory.js';
import { type ClusterSpecInput, clusterSpecSchema } from '../../src/spec/schema.js';
import { secretRefProblem } from '../../src/transport/ssh/secrets.js';
import { loadVersions } from '../../src/versions/versions.js';
import { testTempDirSync } from '../helpers/temp.js';

const versions = loadVersions();

/** A machine with these variables set and these files readable (every other file missing). */
function machine(env: Record<string, string>, files: string[], agent = false): CredentialLookup {
  return {
    refProblem: (ref) =>
      'env' in ref
        ? env[ref.env] === undefined
          ? `environment variable ${ref.env} is not set`
          : undefined
        : files.includes(ref.file)
          ? undefined
          : `cannot read file ${ref.file} (no such file)`,
    hasSshAgent: () => agent,
  };
}

const key = { user: 'root', privateKey: { file: '/keys/id' } };
const staticSpec: ClusterSpecInput = {
  name: 'lab',
  provider: {
    type: 'static',
    hosts: [
      { name: 'cp-01', address: '192.0.2.10', group: 'control-plane' },
      { name: 'lin-01', address: '192.0.2.11', group: 'linux' },
      { name: 'lin-02', address: '192.0.2.12', group: 'linux' },
      {
        name: 'win-01',
        address: '192.0.2.13',
        group: 'windows',
        credentials: { user: 'Administrator', password: { env: 'KMX_WIN_PW' } },
      },
      { name: 'here', address: '127.0.0.1', group: 'local', connection: 'local', credentials: key },
    ],
  },
  nodes: {
    controlPlane: { credentials: { user: 'root', agent: true } },
    workers: [
      { name: 'linux', os: 'linux', count: 2, credentials: key },
      { name: 'windows', os: 'windows', count: 1 },
      { name: 'local', os: 'linux', count: 1 },
    ],
  },
};
const spec = clusterSpecSchema.parse(staticSpec);
const hosts = plannedHosts(spec, { versions, clusterDir: '' });

describe('unusableCredentials', () => {
  it('names each host, the spec field the credential was written at, and the variable or file', () => {
    const lines = unusableCredentials(hosts, machine({}, [])).map(credentialProblemLine);
    expect(lines).toEqual([
      'host cp-01: nodes.controlPlane.credentials.agent: ssh-agent requested but SSH_AUTH_SOCK is not set',
      'hosts lin-01, lin-02: nodes.workers.0.credentials.privateKey: cannot read file /keys/id (no such file)',
      'host win-01: provider.hosts.3.credentials.password: environment variable KMX_WIN_PW is not set',
    ]);
  });

  it('finds nothing when every reference resolves; a local host logs in to nothing', () => {
    expect(unusableCredentials(hosts, machine({ KMX_WIN_PW: 'x' }, ['/keys/id'], true))).toEqual([]);
  });

  it('requireUsableCredentials throws a SecretRefError (exit 2) with one line per problem', () => {
    const refuse = () => requireUsableCredentials(hosts, machine({ KMX_WIN_PW: 'x' }, [], true));
    expect(refuse).toThrow(SecretRefError);
    expect(refuse).toThrow(
      /^hosts lin-01, lin-02: nodes\.workers\.0\.credentials\.privateKey: cannot read file \/keys\/id \(no such file\)$/,
    );
  });

  it('does not check the cluster key kubemix makes for the guests it creates', async () => {
    const libvirt = clusterSpecSchema.parse({
      name: 'lab',
      provider: { type: 'libvirt' },
      nodes: { controlPlane: { count: 1 }, workers: [{ name: 'w', os: 'linux', count: 1 }] },
    });
    const plan = buildPlan({
      spec: libvirt,
      versions,
      clusterDir: '/nonexistent/cluster',
      playbooks: await loadClusterPlaybooks(),
      playbookDir: playbooksDir(),
    });
    const guests = plan.hosts.filter((h) => h.createdBy === 'libvirt');
    expect(guests.map((g) => g.credentials?.privateKey)).toEqual([
      { file: expect.stringContaining('/nonexistent/cluster') },
      { file: expect.stringContaining('/nonexistent/cluster') },
    ]);
    expect(unusableCredentials(hostsConnectedBy(plan), machine({}, []))).toEqual([]);
  });

  it("names an inventory's variables for `kubemix run`", () => {
    const host = toInventoryHost(
      'web1',
      {
        ansible_host: '192.0.2.20',
        ansible_private_key_file: '/keys/web',
        ansible_password_env: 'KMX_SUDO',
      },
      'all',
    );
    expect(unusableCredentials([host], machine({}, [])).map(credentialProblemLine)).toEqual([
      'host web1: ansible_private_key_file: cannot read file /keys/web (no such file)',
      'host web1: ansible_password_env: environment variable KMX_SUDO is not set',
    ]);
  });
});

describe('secretRefProblem (this machine)', () => {
  it('tells a missing file, a directory, an unset and an empty variable from a usable one', () => {
    const dir = testTempDirSync('credential-check');
    const file = join(dir, 'id');
    writeFileSync(file, 'key');
    mkdirSync(join(dir, 'sub'));
    expect(secretRefProblem({ file })).toBeUndefined();
    expect(secretRefProblem({ file: join(dir, 'missing') })).toBe(
      `cannot read file ${join(dir, 'missing')} (no such file)`,
    );
    expect(secretRefProblem({ file: join(dir, 'sub') })).toBe(
      `cannot read file ${join(dir, 'sub')} (a directory)`,
    );
    const name = 'KMX_CREDENTIAL_CHECK_TEST';
    delete process.env[name];
    expect(secretRefProblem({ env: name })).toBe(`environment variable ${name} is not set`);
    process.env[name] = '';
    expect(secretRefProblem({ env: name })).toBe(`environment variable ${name} is empty`);
    process.env[name] = 'secret-value';
    expect(secretRefProblem({ env: name })).toBeUndefined();
    delete process.env[name];
  });
});
