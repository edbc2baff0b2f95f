import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeInstanceAttributeCommand, DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../../fixtures/ec2-proxy/proxy.js';
import { MOTO_LINUX_AMI, upKilledAt, useMoto } from './harness.js';

// `kubemix up` killed in create-hosts and run again, the way a user resumes: the second run must
// send RunInstances exactly as the first did (EC2 answers IdempotentParameterMismatch to a client
// token reused with other parameters) and pin the WinRM certificate the instances were given.
const moto = useMoto();

/** A moto SSM parameter naming an AMI: what an SSM "latest" parameter is, rolled by the test. */
const LINUX_PARAMETER = '/kubemix-test/linux/latest';
// Another x86_64 Linux AMI moto ships (moto/ec2/resources/amis.json.gz): the parameter rolls to it.
const NEWER_LINUX_AMI = 'ami-1e749f67';

const cluster = (
  name: string,
  options: { winrm: 'http' | 'https'; linuxImage?: string },
  faults: FaultPlan = {},
) => moto.cliCluster({ name, ...options }, faults);

/** `kubemix up` to create-hosts, SIGKILLed once EC2 has carried out the `nth` `action`. */
async function killedAt(c: Awaited<ReturnType<typeof cluster>>, action: string, nth = 1) {
  const killed = await upKilledAt(c, action, nth);
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
}

/**
 * Tag lookups of instances a resumed `up` makes before create-hosts asks for the cluster's
 * instances (prepare-provider's and create-hosts' checks for another cluster of the name, then
 * the launch's own): a lag of this many keeps the instances killed `up` launched out of the
 * launch's lookup, as EC2's lagging tag filters can.
 */
const RESUME_TAG_LOOKUPS = 3;

const motoEc2 = () => {
  const ec2 = new EC2Client({ region: 'eu-west-1', endpoint: moto.url, maxAttempts: 1 });
  moto.afterTest(() => ec2.destroy());
  return ec2;
};

/** The SHA-256 fingerprint (hex) of the WinRM certificate in a Windows instance's user data, read by OpenSSL. */
async function certificateInUserData(instanceId: string, scratch: string): Promise<string> {
  const answer = await motoEc2().send(
    new DescribeInstanceAttributeCommand({ InstanceId: instanceId, Attribute: 'userData' }),
  );
  const script = Buffer.from(answer.UserData?.Value ?? '', 'base64').toString();
  const pfx = /FromBase64String\('([A-Za-z0-9+/=]+)'\)/.exec(script)?.[1];
  expect(pfx, 'the user data imports a PKCS#12').toBeDefined();
  const file = join(scratch, 'winrm.pfx');
  writeFileSync(file, Buffer.from(pfx ?? '', 'base64'), { mode: 0o600 });
  const pem = execFileSync('openssl', ['pkcs12', '-in', file, '-nokeys', '-passin', 'pass:']);
  const line = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], {
    input: pem,
  }).toString();
  rmSync(file);
  return (line.trim().split('=')[1] ?? '').replaceAll(':', '').toLowerCase();
}

describe('a resumed create-hosts on EC2 (moto)', () => {
  it.each([
    ['while it waits for the Windows password', 'GetPasswordData', { passwordPending: 1_000_000 }],
    ["right after the Windows group's RunInstances", 'RunInstances', {}],
  ] as const)(
    'WinRM over HTTPS, killed %s: the resume pins the certificate the instance holds',
    async (_when, action, faults) => {
      const name = `https-${action.toLowerCase()}`;
      const c = await cluster(name, { winrm: 'https' }, faults);
      // Groups launch in plan order: control plane, linux, win.
      await killedAt(c, action, action === 'RunInstances' ? 3 : 1);
      // The new instance is missing from the resume's first tag lookup (eventual consistency), so
      // the resume sends the recorded RunInstances again.
      // (Killed during the password wait, the instances were already seen by tag: one more lagging
      // lookup changes nothing.)
      c.proxy.setFaults({ tagLag: action === 'RunInstances' ? RESUME_TAG_LOOKUPS : 1 });
      const resumed = await c.cli(['up', c.spec, '--stop-after', 'create-hosts']);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(await moto.tagged(name, 'Instance')).toHaveLength(3);
      // Killed after the last RunInstances, before any tag lookup saw the instances: the resume
      // sent all three again (and EC2 answered each first call's result).
      const launches = c.proxy.actions().filter((a) => a === 'RunInstances');
      expect(launches).toHaveLength(action === 'RunInstances' ? 6 : 3);
      const state = JSON.parse(readFileSync(join(c.dir, 'state.json'), 'utf8'));
      const win = state.assignments['win-01'].vars;
      expect(win.kubemix_winrm_cert_fingerprint).toBe(
        await certificateInUserData(win.ec2_instance_id, c.dir),
      );
      // The certificate's private key is in secrets.json only.
      const secrets = JSON.parse(readFileSync(join(c.dir, 'secrets.json'), 'utf8')).outputs;
      const pfx = Object.values(secrets).flatMap((values) =>
        Object.values((values as Record<string, unknown>)['ec2_winrm_certificates'] ?? {}),
      )[0];
      expect(typeof pfx).toBe('string');
      expect(readFileSync(join(c.dir, 'state.json'), 'utf8')).not.toContain(String(pfx).slice(0, 64));
      c.proxy.setFaults({});
      const down = await c.cli(['down', c.spec]);
      expect(down.exitCode, down.stderr).toBe(0);
      expect(await moto.tagged(name)).toEqual([]);
    },
  );

  it("instances that terminate at launch: up fails with EC2's reason, the next up launches afresh", async () => {
    const c = await cluster(
      'dies-at-launch',
      { winrm: 'http' },
      // AWS's reason when an encrypted volume's KMS key cannot be used (EC2 User Guide, "Instance terminates immediately").
      {
        terminateAtLaunch: {
          times: 1,
          code: 'Client.InternalError',
          message: 'Client.InternalError: Client error on launch',
        },
      },
    );
    const failed = await c.cli(['up', c.spec, '--stop-after', 'create-hosts']);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(
      /controller-01.*terminated at launch: Client\.InternalError: Client error on launch/,
    );
    const again = await c.cli(['up', c.spec, '--stop-after', 'create-hosts']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await moto.tagged('dies-at-launch', 'Instance')).toHaveLength(3);
    const down = await c.cli(['down', c.spec]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(await moto.tagged('dies-at-launch')).toEqual([]);
  });

  it('an SSM image parameter that rolls between the runs: the resume launches the recorded AMI', async () => {
    const ssm = new SSMClient({ region: 'eu-west-1', endpoint: moto.url, maxAttempts: 1 });
    moto.afterTest(() => ssm.destroy());
    const put = (value: string) =>
      ssm.send(
        new PutParameterCommand({ Name: LINUX_PARAMETER, Value: value, Type: 'String', Overwrite: true }),
      );
    await put(MOTO_LINUX_AMI);
    const c = await cluster('rolling-ami', { winrm: 'http', linuxImage: `ssm:${LINUX_PARAMETER}` });
    await killedAt(c, 'RunInstances', 1);
    await put(NEWER_LINUX_AMI);
    c.proxy.setFaults({ tagLag: RESUME_TAG_LOOKUPS });
    const resumed = await c.cli(['up', c.spec, '--stop-after', 'create-hosts']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(c.proxy.calls.filter((call) => call.injected === 'IdempotentParameterMismatch')).toEqual([]);
    // The control plane's RunInstances twice (killed, then resent), then the other two groups'.
    expect(c.proxy.actions().filter((a) => a === 'RunInstances')).toHaveLength(4);
    const described = await motoEc2().send(
      new DescribeInstancesCommand({
        Filters: [{ Name: 'tag:kubemix.io/cluster', Values: ['rolling-ami'] }],
      }),
    );
    const instances = (described.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    expect(instances).toHaveLength(3);
    // The control plane was launched before the roll; the resume sent that call again, as it was.
    const role = (i: (typeof instances)[number]) => i.Tags?.find((t) => t.Key === 'kubemix.io/role')?.Value;
    expect(instances.filter((i) => role(i) === 'launch/control-plane').map((i) => i.ImageId)).toEqual([
      MOTO_LINUX_AMI,
    ]);
    c.proxy.setFaults({});
    const down = await c.cli(['down', c.spec]);
    expect(down.exitCode, down.stderr).toBe(0);
  });
});
