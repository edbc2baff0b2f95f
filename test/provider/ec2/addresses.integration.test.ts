import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClusterKey } from '../../../fixtures/ec2-proxy/cluster-key.js';
import { MOTO_ENV, type Moto, startMoto } from '../../../fixtures/ec2-proxy/moto.js';
import { Ec2FaultProxy } from '../../../fixtures/ec2-proxy/proxy.js';
import {
  createHostsTask,
  createNetworkTask,
  destroyTask,
  prepareProvider,
} from '../../../src/provider/ec2/lifecycle.js';
import { ec2Context, ec2Spec } from './harness.js';

// With the default connectVia (public) kubemix connects over each instance's public address, and
// the cluster uses the private one: the public IPv4 address is NAT-mapped and on no interface.
Object.assign(process.env, MOTO_ENV);

let moto: Moto;
let proxy: Ec2FaultProxy;
beforeAll(async () => {
  moto = await startMoto();
  proxy = new Ec2FaultProxy(moto.url, {});
});
afterAll(async () => {
  await proxy?.stop();
  await moto?.stop();
});

describe('EC2 host addresses', () => {
  it('connectVia public: connect over the public address, the node address is the private one', async () => {
    const key = await testClusterKey();
    const endpoint = await proxy.start();
    const ctx = await ec2Context({ cluster: 'addr', endpoint });
    try {
      // connectVia public: the default (set here over the harness's spec, whichever it uses).
      const base = ec2Spec({ name: 'addr', endpoint, windowsWorkers: 0 });
      if (base.provider.type !== 'ec2') throw new TypeError('an ec2 spec');
      const spec = { ...base, provider: { ...base.provider, connectVia: 'public' as const } };
      await prepareProvider(ctx, spec);
      await createNetworkTask(ctx, spec, key.publicKey);
      const created = await createHostsTask(ctx, spec, {
        publicKey: key.publicKey,
        privateKeyPem: key.privateKeyPem,
      });
      // What EC2 itself says of each instance, not what kubemix recorded.
      const described = await ctx.aws.ec2.send(new DescribeInstancesCommand({}));
      const byId = new Map(
        (described.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => [i.InstanceId, i]),
      );
      expect(created.hosts).toHaveLength(2);
      for (const host of created.hosts) {
        const instance = byId.get(String(host.vars['ec2_instance_id']));
        expect(instance?.PublicIpAddress).toBeTruthy();
        expect(host.address).toBe(instance?.PublicIpAddress);
        expect(host.nodeAddress).toBe(instance?.PrivateIpAddress);
        expect(host.nodeAddress).not.toBe(host.address);
      }
      await destroyTask(ctx, spec);
    } finally {
      await ctx.dispose();
    }
  });
});
