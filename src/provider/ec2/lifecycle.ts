import { KubemixError } from '../../errors/index.js';
import type { ClusterSpec } from '../../spec/schema.js';
import { type Ec2Context, type Ec2HostAssignment, recorded } from './context.js';
import { awaitInstances, launchInstances, windowsPasswords } from './instances.js';
import { certificateFingerprint } from './keys.js';
import { findLeaks } from './leak-check.js';
import { createNetwork, type Ec2Network } from './network.js';
import { type Ec2Plan, planEc2 } from './plan.js';
import { destroyCluster } from './teardown.js';
import { LINUX_USER, linuxUserData, windowsUserData } from './user-data.js';
import { type Ec2Preflight, preflight } from './validate.js';

/**
 * The EC2 provider's tasks, each whole and resumable on its own (a resumed run may start at any
 * of them in a new process): they read what earlier tasks made from the records and AWS, never
 * from memory.
 */

const rangesOf = (spec: ClusterSpec) => ({
  podCIDR: spec.network.podCIDR,
  serviceCIDR: spec.network.serviceCIDR,
});

/** prepare-provider: every input problem at once (Ec2InputError, exit 2); creates nothing. */
export async function prepareProvider(ctx: Ec2Context, spec: ClusterSpec): Promise<Ec2Preflight> {
  return preflight(ctx, planEc2(spec), rangesOf(spec));
}

/** create-network: VPC, subnet, gateway, routes (unless the spec names a subnet), security group, key pair. */
export async function createNetworkTask(
  ctx: Ec2Context,
  spec: ClusterSpec,
  publicKey: string,
): Promise<Ec2Network> {
  const plan = planEc2(spec);
  return createNetwork(ctx, plan, await preflight(ctx, plan, rangesOf(spec)), publicKey);
}

/** What create-hosts learned: each host's address and vars. */
export interface CreatedHosts {
  hosts: Ec2HostAssignment[];
  /** The Linux login kubemix uses (cloud-init creates it). */
  linuxUser: string;
}

/** Bounds of create-hosts' waits. */
export interface CreateHostsOptions {
  publicKey: string;
  privateKeyPem: string;
  /** Instances running with addresses. Default 10 min. */
  instancesTimeoutMs?: number;
  /**
   * WinRM over HTTPS: each Windows group's certificate (PKCS#12, base64), made once by
   * `winrmCertificates` (winrm-certificates.ts) and kept in secrets.json, so a resumed run pins what the running
   * instances hold and sends the user data it launched them with.
   */
  certificates?: Record<string, string>;
}

/**
 * create-hosts: one RunInstances per group (resumable, never doubled), then wait until every node
 * runs with its address (failing at once, with EC2's reason, for instances that die at launch).
 * Returns what the inventory needs; the Windows passwords are {@link windowsPasswordsTask}'s.
 */
export async function createHostsTask(
  ctx: Ec2Context,
  spec: ClusterSpec,
  options: CreateHostsOptions,
): Promise<CreatedHosts> {
  const plan = planEc2(spec);
  const checked = await preflight(ctx, plan, rangesOf(spec));
  const network = recordedNetwork(ctx, plan, checked);
  const keyPairId = recorded(ctx, 'key-pair', 'key-pair')?.details?.['id'];
  if (!keyPairId)
    throw new KubemixError('create-hosts: the key pair is not recorded; run create-network first');
  const certificates = new Map<string, string>();
  const userData = new Map<string, string>();
  for (const group of plan.groups) {
    if (group.os === 'linux') {
      userData.set(group.group, linuxUserData({ hostnames: group.nodes, publicKey: options.publicKey }));
      continue;
    }
    // One certificate per group: its instances share one user data (one RunInstances).
    const pfx = plan.winrm === 'https' ? options.certificates?.[group.group] : undefined;
    if (plan.winrm === 'https' && !pfx)
      throw new KubemixError(`create-hosts: no WinRM certificate kept for group ${group.group}`);
    if (pfx) {
      const fingerprint = certificateFingerprint(pfx);
      for (const node of group.nodes) certificates.set(node, fingerprint);
    }
    userData.set(
      group.group,
      windowsUserData({
        computerNames: group.nodes,
        winrm: plan.winrm,
        ...(pfx ? { certificatePfxBase64: pfx } : {}),
        ...(group.connection === 'ssh' ? { sshPublicKey: options.publicKey } : {}),
      }),
    );
  }
  await launchInstances(ctx, { plan, images: checked.images, network, userData, buildId: keyPairId });
  const hosts = await awaitInstances(ctx, plan, options.instancesTimeoutMs ?? 600_000);
  for (const host of hosts) {
    const fingerprint = certificates.get(host.name);
    if (fingerprint)
      Object.assign(host.vars, {
        ansible_winrm_scheme: 'https',
        kubemix_winrm_cert_fingerprint: fingerprint,
      });
  }
  return { hosts, linuxUser: LINUX_USER };
}

/**
 * create-hosts, last step: the Administrator password of every Windows node (by node name), from
 * GetPasswordData of the instance create-hosts recorded for it, decrypted with the cluster key
 * (EC2Launch sets it within minutes; AWS says up to 15). A secret: the caller keeps it in
 * secrets.json only. A step of its own, so that the launch's progress is shown live while this
 * step's output stays hidden (a no_log step's failure tells its error either way: run-step.ts).
 */
export async function windowsPasswordsTask(
  ctx: Ec2Context,
  spec: ClusterSpec,
  options: { privateKeyPem: string; passwordTimeoutMs?: number },
): Promise<Map<string, string>> {
  const plan = planEc2(spec);
  const nodes = plan.groups
    .filter((g) => g.os === 'windows')
    .flatMap((g) => g.nodes)
    .map((name) => {
      const instanceId = recorded(ctx, 'instance', name)?.details?.['id'];
      if (!instanceId)
        throw new KubemixError(`create-hosts: no instance recorded for ${name}; run create-hosts again`);
      return { name, instanceId };
    });
  return windowsPasswords(ctx, nodes, options.privateKeyPem, options.passwordTimeoutMs ?? 1_500_000);
}

function recordedNetwork(ctx: Ec2Context, plan: Ec2Plan, checked: Ec2Preflight): Ec2Network {
  const id = (kind: 'vpc' | 'subnet' | 'security-group') => recorded(ctx, kind, kind)?.details?.['id'];
  const subnetId = plan.network.kind === 'existing' ? plan.network.subnetId : id('subnet');
  const vpcId = plan.network.kind === 'existing' ? checked.existing?.vpcId : id('vpc');
  const securityGroupId = id('security-group');
  if (!subnetId || !vpcId || !securityGroupId)
    throw new KubemixError('create-hosts: the network is not recorded; run create-network first');
  return { vpcId, subnetId, securityGroupId, keyName: plan.keyPairName };
}

/** The EC2 part of `down`: everything of the cluster, in dependency order; never the spec's own VPC/subnet. */
export async function destroyTask(ctx: Ec2Context, spec: ClusterSpec, timeoutMs?: number): Promise<void> {
  if (spec.provider.type !== 'ec2') throw new TypeError('destroyTask needs an ec2 spec');
  await destroyCluster(ctx, {
    keep: { vpcId: spec.provider.vpcId, subnetId: spec.provider.subnetId },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/** The end of `down`: fails naming everything still tagged with the cluster. */
export async function leakCheckTask(ctx: Ec2Context): Promise<void> {
  const leaks = await findLeaks(ctx);
  if (leaks.length > 0)
    throw new KubemixError(
      `leak check: ${leaks.length} resource(s) of ${ctx.cluster} remain in ${ctx.aws.region}: ${leaks.join(', ')}`,
    );
}
