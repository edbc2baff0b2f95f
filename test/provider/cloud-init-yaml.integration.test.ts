import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cloudInitYaml } from '../../src/provider/cloud-init-yaml.js';
import { linuxUserData } from '../../src/provider/ec2/user-data.js';
import { nocloudSeed } from '../../src/provider/libvirt/cloud-init.js';

// cloud-init reads its seed with PyYAML (YAML 1.1): Debian's python3-yaml reads back what kubemix
// writes, as a guest's cloud-init would. /usr/bin/python3 explicitly: a pyenv python may lack it.
const PYTHON = '/usr/bin/python3';

/** The document as PyYAML's safe_load reads it, as JSON. */
async function pyyaml(text: string): Promise<unknown> {
  const { stdout } = await execa(
    PYTHON,
    ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'],
    {
      input: text,
    },
  );
  return JSON.parse(stdout);
}

// Every octet digits and below 60: PyYAML's base-60 integer (41135158889 before the fix).
const BASE60_MAC = '52:54:00:33:01:29';

describe('cloud-init seeds as PyYAML reads them', () => {
  it('a libvirt guest whose MAC looks like a base-60 number keeps it as a string in network-config', async () => {
    const seed = nocloudSeed({
      hostname: 'controller-01',
      domain: 'demo.kubemix',
      instanceId: 'demo-controller-01',
      mac: BASE60_MAC,
      publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTheTest kubemix',
    });
    expect(await pyyaml(seed['network-config']!)).toEqual({
      version: 2,
      ethernets: { primary: { match: { macaddress: BASE60_MAC }, dhcp4: true } },
    });
    expect(await pyyaml(seed['meta-data']!)).toEqual({
      'instance-id': 'demo-controller-01',
      'local-hostname': 'controller-01',
    });
    expect(await pyyaml(seed['user-data']!)).toMatchObject({
      hostname: 'controller-01',
      disable_root: false,
    });
  });

  it('strings YAML 1.1 reads as booleans or numbers stay strings, in EC2 user data too', async () => {
    expect(await pyyaml(cloudInitYaml({ a: 'yes', b: 'off', c: '0755', d: '1:30', e: BASE60_MAC }))).toEqual({
      a: 'yes',
      b: 'off',
      c: '0755',
      d: '1:30',
      e: BASE60_MAC,
    });
    const userData = linuxUserData({ hostnames: ['controller-01'], publicKey: 'ssh-ed25519 AAAA kubemix' });
    expect(userData.startsWith('#cloud-config\n')).toBe(true);
    expect(JSON.stringify(await pyyaml(userData))).toContain('"ssh-ed25519 AAAA kubemix"');
  });
});
