import {
  DescribeInstancesCommand,
  GetPasswordDataCommand,
  type Instance,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { KubemixError } from '../../errors/index.js';
import { awsErrorCode, describeAwsError } from './client.js';
import { type Ec2Context, type Ec2HostAssignment, record } from './context.js';
import { isOurs, ownerFilter, ownTags } from './identity.js';
import type { ResolvedImage } from './images.js';
import { decryptWindowsPassword } from './keys.js';
import type { Ec2Network } from './network.js';
import type { Ec2Plan, InstanceGroupPlan } from './plan.js';
import { clientToken, ROLE_TAG, tagValue } from './tags.js';
import { waitFor } from './wait.js';

/** States of instances that exist (or are on their way): everything but terminated. */
export const LIVE_STATES = ['pending', 'running', 'shutting-down', 'stopping', 'stopped'];

const launchRole = (group: string) => `launch/${group}`;

/** What create-hosts needs besides the plan. */
export interface CreateHostsInput {
  plan: Ec2Plan;
  images: Map<string, ResolvedImage>;
  network: Ec2Network;
  /** User data of each group (one RunInstances, one user data). */
  userData: Map<string, string>;
  /** Changes with every build (the key pair's id): keeps client tokens of an earlier build from answering. */
  buildId: string;
}

/** Every live instance of the cluster: one DescribeInstances with filters (paginated), never one per instance. */
export async function clusterInstances(ctx: Ec2Context, states = LIVE_STATES): Promise<Instance[]> {
  return (await describeInstances(ctx, ownerFilter(ctx), states)).filter((i) => isOurs(ctx, i.Tags));
}

/** The instances in the given states matching a tag filter (none: all of the region's; paginated). */
export async function describeInstances(
  ctx: Ec2Context,
  filter: { Name: string; Values: string[] } | undefined,
  states = LIVE_STATES,
): Promise<Instance[]> {
  const instances: Instance[] = [];
  let token: string | undefined;
  do {
    const answer = await ctx.aws.ec2.send(
      new DescribeInstancesCommand({
        Filters: [...(filter ? [filter] : []), { Name: 'instance-state-name', Values: states }],
        ...(token ? { NextToken: token } : {}),
      }),
    );
    for (const reservation of answer.Reservations ?? []) instances.push(...(reservation.Instances ?? []));
    token = answer.NextToken;
  } while (token);
  return instances;
}

/**
 * create-hosts, part 1: one RunInstances per group (MinCount = MaxCount = count), with a client
 * token recorded before the call, so a retried or resumed create returns the same instances; a
 * group whose instances already run (found by tag) is not launched again.
 */
export async function launchInstances(ctx: Ec2Context, input: CreateHostsInput): Promise<void> {
  const { plan } = input;
  const existing = await clusterInstances(ctx, ['pending', 'running']).catch((error) => {
    throw describeAwsError('create-hosts: listing the cluster instances', error);
  });
  for (const group of plan.groups) {
    const role = launchRole(group.group);
    const have = existing.filter((i) => tagValue(i.Tags, ROLE_TAG) === role).length;
    if (have >= group.nodes.length) continue;
    const token = clientToken(plan.cluster, group.group, input.buildId);
    await record(ctx, 'launch', group.group, 'intended', { clientToken: token });
    const answer = await runInstances(ctx, group, input, token);
    const ids = (answer.Instances ?? []).flatMap((i) => (i.InstanceId ? [i.InstanceId] : []));
    await record(ctx, 'launch', group.group, 'created', { clientToken: token, instances: ids.join(',') });
    ctx.progress(`launched ${ids.length} instance(s) of ${group.group}`);
  }
}

async function runInstances(
  ctx: Ec2Context,
  group: InstanceGroupPlan,
  input: CreateHostsInput,
  token: string,
) {
  const image = input.images.get(group.group);
  if (!image) throw new KubemixError(`create-hosts: no image resolved for group ${group.group}`);
  const role = launchRole(group.group);
  const name = `kubemix-${ctx.cluster}-${group.group}`;
  const tags = ownTags(ctx, role, name);
  try {
    return await ctx.aws.ec2.send(
      new RunInstancesCommand({
        ImageId: image.imageId,
        InstanceType: group.instanceType as never,
        MinCount: group.nodes.length,
        MaxCount: group.nodes.length,
        ClientToken: token,
        KeyName: input.network.keyName,
        UserData: Buffer.from(input.userData.get(group.group) ?? '').toString('base64'),
        NetworkInterfaces: [
          {
            DeviceIndex: 0,
            SubnetId: input.network.subnetId,
            Groups: [input.network.securityGroupId],
            AssociatePublicIpAddress: input.plan.connectVia === 'public',
            DeleteOnTermination: true,
          },
        ],
        MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled' },
        // The root volume dies with the instance whatever the AMI says (some keep it).
        ...(image.rootDeviceName
          ? {
              BlockDeviceMappings: [
                {
                  DeviceName: image.rootDeviceName,
                  Ebs: {
                    DeleteOnTermination: true,
                    ...(image.rootSnapshotId ? { SnapshotId: image.rootSnapshotId } : {}),
                    ...(group.rootVolumeGiB
                      ? { VolumeSize: group.rootVolumeGiB, VolumeType: 'gp3' as const }
                      : {}),
                  },
                },
              ],
            }
          : {}),
        TagSpecifications: (['instance', 'volume', 'network-interface'] as const).map((type) => ({
          ResourceType: type,
          Tags: tags,
        })),
      }),
    );
  } catch (error) {
    const code = awsErrorCode(error) ?? '';
    if (/LimitExceeded$|^InsufficientInstanceCapacity$/.test(code) && code !== 'RequestLimitExceeded')
      throw new KubemixError(
        `create-hosts: ${group.nodes.length} x ${group.instanceType} for group ${group.group}: ${code} (${(error as Error).message}); raise the quota or lower the count, then run kubemix down or up again`,
        { cause: error },
      );
    throw describeAwsError(`create-hosts: launching group ${group.group}`, error);
  }
}

/**
 * create-hosts, part 2: waits (bounded, with progress) until every node's instance runs and has
 * the address kubemix connects to, records each instance, and returns each host's address.
 * Instances map to nodes by their group tag and launch index.
 */
export async function awaitInstances(
  ctx: Ec2Context,
  plan: Ec2Plan,
  timeoutMs: number,
): Promise<Ec2HostAssignment[]> {
  const wanted = plan.groups.reduce((n, g) => n + g.nodes.length, 0);
  const ready = await waitFor<Map<string, Instance>>(
    ctx,
    { what: `${wanted} instance(s) of ${plan.cluster}`, timeoutMs },
    async () => {
      const instances = await clusterInstances(ctx, ['pending', 'running']).catch((error) => {
        throw describeAwsError('create-hosts: waiting for the instances', error);
      });
      const byNode = new Map<string, Instance>();
      for (const group of plan.groups) {
        for (const instance of instances) {
          if (tagValue(instance.Tags, ROLE_TAG) !== launchRole(group.group)) continue;
          const node = group.nodes[instance.AmiLaunchIndex ?? -1];
          if (
            node &&
            instance.State?.Name === 'running' &&
            instance.PrivateIpAddress &&
            address(instance, plan.connectVia)
          )
            byNode.set(node, instance);
        }
      }
      if (byNode.size === wanted) return { done: byNode };
      const running = instances.filter((i) => i.State?.Name === 'running').length;
      return { progress: `${running}/${wanted} running, ${byNode.size}/${wanted} reachable` };
    },
  );
  const assignments: Ec2HostAssignment[] = [];
  for (const [node, instance] of ready) {
    await record(ctx, 'instance', node, 'created', { id: instance.InstanceId ?? '' });
    assignments.push(hostAssignment(node, instance, plan.connectVia));
  }
  return assignments.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What create-hosts records for a node: kubemix connects over `connectVia`'s address, the cluster
 * uses the private one. A public IPv4 address is a NAT mapping on the internet gateway and exists
 * on no interface of the instance (AWS, Amazon VPC User Guide, "IP addressing for your VPCs and
 * subnets" / EC2 User Guide "Public IPv4 addresses": "a public IP address is mapped to the
 * primary private IP address through network address translation (NAT)"), so etcd cannot bind it
 * and the kubelet refuses it as a node IP.
 */
export function hostAssignment(
  node: string,
  instance: Instance,
  connectVia: 'public' | 'private',
): Ec2HostAssignment {
  return {
    name: node,
    address: address(instance, connectVia)!,
    nodeAddress: instance.PrivateIpAddress!,
    vars: {
      ec2_instance_id: instance.InstanceId,
      ec2_private_ip: instance.PrivateIpAddress,
      ...(instance.PublicIpAddress ? { ec2_public_ip: instance.PublicIpAddress } : {}),
    },
  };
}

const address = (instance: Instance, via: 'public' | 'private') =>
  via === 'public' ? instance.PublicIpAddress : instance.PrivateIpAddress;

/**
 * The Administrator password of each Windows node: GetPasswordData (one per instance: the API
 * takes one id) polled until EC2Launch has set it (usually ~5 min, AWS says up to 15), then
 * decrypted with the cluster key. InvalidInstanceID.NotFound right after launch is EC2's
 * eventual consistency and is waited out like an empty answer.
 */
export async function windowsPasswords(
  ctx: Ec2Context,
  nodes: { name: string; instanceId: string }[],
  privateKeyPem: string,
  timeoutMs: number,
): Promise<Map<string, string>> {
  const passwords = new Map<string, string>();
  if (nodes.length === 0) return passwords;
  return waitFor<Map<string, string>>(
    ctx,
    { what: 'the Windows Administrator passwords', timeoutMs, intervalMs: 5000 },
    async () => {
      for (const node of nodes) {
        if (passwords.has(node.name)) continue;
        try {
          const answer = await ctx.aws.ec2.send(new GetPasswordDataCommand({ InstanceId: node.instanceId }));
          const data = answer.PasswordData?.trim();
          if (data) passwords.set(node.name, decryptWindowsPassword(data, privateKeyPem));
        } catch (error) {
          if (awsErrorCode(error) !== 'InvalidInstanceID.NotFound')
            throw describeAwsError(`create-hosts: password of ${node.name}`, error);
        }
      }
      if (passwords.size === nodes.length) return { done: passwords };
      return { progress: `${passwords.size}/${nodes.length} ready` };
    },
  );
}
