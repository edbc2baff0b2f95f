import { describe, expect, it } from 'vitest';
import { ManifestError, readFlannelNetConf, renderManifestObjects } from '../../src/manifests/index.js';
import { DEFAULT_VARS } from './manifest-vars.js';

const configMap = (name: string, netConf: string) => ({
  kind: 'ConfigMap',
  metadata: { name },
  data: { 'net-conf.json': netConf },
});

describe('readFlannelNetConf', () => {
  it('picks the named ConfigMap when both sides are in one list', () => {
    const all = [
      ...renderManifestObjects('kube-flannel', DEFAULT_VARS),
      ...renderManifestObjects('kube-flannel-windows', DEFAULT_VARS),
    ];
    expect(() => readFlannelNetConf(all)).toThrow(
      'net-conf.json: several ConfigMaps hold net-conf.json (kube-flannel-cfg, kube-flannel-windows-cfg): name the one to read',
    );
    expect(readFlannelNetConf(all, 'kube-flannel-windows-cfg').configMap).toBe('kube-flannel-windows-cfg');
  });

  it('reports VNI and Port as undefined when upstream-style net-conf.json leaves them out', () => {
    expect(
      readFlannelNetConf([
        configMap('kube-flannel-cfg', '{"Network":"10.244.0.0/16","Backend":{"Type":"vxlan"}}'),
      ]),
    ).toEqual({
      network: '10.244.0.0/16',
      backend: 'vxlan',
      vni: undefined,
      port: undefined,
      configMap: 'kube-flannel-cfg',
    });
  });

  it('fails clearly on a missing ConfigMap, bad JSON, or a missing Network', () => {
    expect(() => readFlannelNetConf([], 'kube-flannel-cfg')).toThrow(
      'net-conf.json: no ConfigMap kube-flannel-cfg with net-conf.json',
    );
    expect(() => readFlannelNetConf([configMap('c', '{')])).toThrow(/^c net-conf.json: not JSON: /);
    expect(() => readFlannelNetConf([configMap('c', '{"Backend":{"Type":"vxlan"}}')])).toThrow(ManifestError);
    expect(() =>
      readFlannelNetConf([
        configMap('c', '{"Network":"10.244.0.0/16","Backend":{"Type":"vxlan","VNI":"4096"}}'),
      ]),
    ).toThrow('c net-conf.json: Backend.VNI is not a number');
  });
});
