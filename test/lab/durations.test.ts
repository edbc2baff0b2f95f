import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { standinDelayMs } from '../../fixtures/lab/standins/runtime.js';
import { testTempDir } from '../helpers/temp.js';

describe('stand-in durations', () => {
  beforeAll(async () => {
    const dir = await testTempDir('lab-test');
    const config = join(dir, 'kubemix-lab.json');
    await writeFile(
      config,
      JSON.stringify({ stateDir: dir, durations: { 'kubeadm init': 20000, 'apt-get': 8000 }, scale: 0.5 }),
    );
    process.env['KUBEMIX_LAB_CONFIG'] = config;
  });
  afterEach(() => {
    delete process.env['KUBEMIX_STANDIN_DURATIONS'];
    delete process.env['KUBEMIX_STANDIN_SCALE'];
  });

  it('come from the lab config by "tool subcommand", then "tool", scaled', () => {
    expect(standinDelayMs('kubeadm', 'init')).toBe(10000);
    expect(standinDelayMs('kubeadm', 'join')).toBe(0);
    expect(standinDelayMs('apt-get', 'install')).toBe(4000);
  });

  it('the environment wins over the config (sshd passes no env, the config is the usual source)', () => {
    process.env['KUBEMIX_STANDIN_DURATIONS'] = '{"kubeadm join": 3000}';
    process.env['KUBEMIX_STANDIN_SCALE'] = '0.1';
    expect(standinDelayMs('kubeadm', 'join')).toBe(300);
    expect(standinDelayMs('kubeadm', 'init')).toBe(0);
  });

  it('scale 0 (the default) makes every stand-in instant; a broken JSON map is an error naming the variable', () => {
    process.env['KUBEMIX_STANDIN_SCALE'] = '0';
    expect(standinDelayMs('kubeadm', 'init')).toBe(0);
    process.env['KUBEMIX_STANDIN_DURATIONS'] = '{oops';
    expect(() => standinDelayMs('kubeadm', 'init')).toThrow(/KUBEMIX_STANDIN_DURATIONS is not a JSON object/);
  });
});
