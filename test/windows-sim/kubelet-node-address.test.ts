import { describe, expect, it } from 'vitest';
import { nodeIpProblem } from '../../fixtures/lab/state/node-ip.js';
import type { NodeNic } from '../../fixtures/lab/state/types.js';
import { kubeletNodeAddress } from '../../fixtures/windows-sim/kubelet-node-address.js';

// The kubelet's choice of InternalIP (pkg/kubelet/nodestatus/setters.go NodeAddress) on a
// simulated Windows host with a NAT adapter first.

const NAT_FIRST: NodeNic[] = [
  {
    alias: 'Ethernet',
    ifIndex: 4,
    address: '10.0.2.15',
    prefixLength: 24,
    gateway: '10.0.2.2',
    natOnly: true,
  },
  { alias: 'Ethernet 2', ifIndex: 6, address: '10.233.1.200', prefixLength: 24 },
];
const host = { nodeName: 'win-01', computerName: 'WIN-01', nics: NAT_FIRST };

describe('kubeletNodeAddress', () => {
  it('without --node-ip: the computer name resolves to the adapters in order, so the NAT address wins', () => {
    expect(kubeletNodeAddress(host)).toEqual({ address: '10.0.2.15' });
  });

  it('a node name that is not the computer name falls back to the default-route adapter: NAT again', () => {
    expect(kubeletNodeAddress({ ...host, nodeName: 'worker-7' })).toEqual({ address: '10.0.2.15' });
  });

  it('--node-ip on one of the adapters is what it registers; --hostname-override as an IP too', () => {
    expect(kubeletNodeAddress({ ...host, nodeIp: '10.233.1.200' })).toEqual({ address: '10.233.1.200' });
    expect(kubeletNodeAddress({ ...host, hostnameOverride: '10.233.1.200' })).toEqual({
      address: '10.233.1.200',
    });
  });

  it('refuses a --node-ip that is not on the host, or not a usable unicast address, and registers no address', () => {
    expect(kubeletNodeAddress({ ...host, nodeIp: '10.233.1.99' })).toEqual({
      address: '',
      error: `Failed to set some node status fields: failed to validate nodeIP: node IP: "10.233.1.99" not found in the host's network interfaces`,
    });
    expect(nodeIpProblem('127.0.0.1', NAT_FIRST)).toBe("nodeIP can't be loopback address");
    expect(nodeIpProblem('169.254.1.1', NAT_FIRST)).toBe("nodeIP can't be a link-local unicast address");
    expect(nodeIpProblem('224.0.0.1', NAT_FIRST)).toBe("nodeIP can't be a multicast address");
    expect(nodeIpProblem('win-01.lab', NAT_FIRST)).toBe('nodeIP must be a valid IP address');
  });
});
