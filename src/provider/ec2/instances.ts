import { createHash } from 'node:crypto';
import {
  DescribeInstancesCommand,
  GetPasswordDataCommand,
  type Instance,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { KubemixError } from '../../errors/index.js';
import { awsErrorCode, describeAwsError } from './client.js';
import { withOwnIds } from './consistency.js';
import {
  type Ec2Context,
  type Ec2HostAssignment,
  type Ec2ResourceKind,
  record,
  recorded,
} from './context.js';
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

/** States of instances that are gone or going: a launch whose instances are all here is dead. */
const GONE_STATES = ['shutting-down', 'terminated'];

/**
 * create-hosts, part 1: one RunInstances per group (MinCount = MaxCount = count), with a client
 * token recorded before the call, so a retried or resumed create returns the same instances; a
 * group whose instances already run (found by tag) is not launched again. A launch whose instances
 * all terminated (at launch: see {@link awaitInstances}) is followed by a new attempt with a new
 * token, since the old token only ever answers the dead reservation.
 */
export async function launchInstances(ctx: Ec2Context, input: CreateHostsInput): Promise<void> {
  const { plan } = input;
  const existing = await clusterInstances(ctx, [...LIVE_STATES, 'terminated']).catch((error) => {
    throw describeAwsError('create-hosts: listing the cluster instances', error);
  });
  const gone = new Set(
    existing.filter((i) => GONE_STATES.includes(i.State?.Name ?? '')).map((i) => i.InstanceId),
  );
  for (const group of plan.groups) {
    const role = launchRole(group.group);
    const have = existing.filter(
      (i) => tagValue(i.Tags, ROLE_TAG) === role && ['pending', 'running'].includes(i.State?.Name ?? ''),
    ).length;
    if (have >= group.nodes.length) continue;
    const launch = nextLaunch(ctx, input, group, gone);
    await record(ctx, 'launch', group.group, 'intended', launch.details);
    const answer = await runInstances(ctx, group, input, launch);
    const ids = (answer.Instances ?? []).flatMap((i) => (i.InstanceId ? [i.InstanceId] : []));
    await record(ctx, 'launch', group.group, 'created', { ...launch.details, instances: ids.join(',') });
    ctx.progress(`launched ${ids.length} instance(s) of ${group.group}`);
  }
}

/** One RunInstances call of a group: its token and what it sends, as recorded before the call. */
interface Launch {
  token: string;
  image: Pick<ResolvedImage, 'imageId' | 'rootDeviceName' | 'rootSnapshotId'>;
  userData: string;
  /** The launch record's details (state.json): never a secret, so the user data only as a digest. */
  details: Record<string, string>;
}

/**
 * The group's launch: a repeat of the recorded one (same token, and the same parameters, since EC2
 * answers IdempotentParameterMismatch to a token reused with other ones: EC2 API Reference,
 * "Ensuring idempotency in Amazon EC2 API requests") — the recorded AMI, not the one an SSM
 * parameter names today, and user data that must hash as recorded; or, when every instance of
 * the recorded attempt is gone, the next attempt with a fresh token and today's AMI.
 */
function nextLaunch(
  ctx: Ec2Context,
  input: CreateHostsInput,
  group: InstanceGroupPlan,
  gone: Set<string | undefined>,
): Launch {
  const known = recorded(ctx, 'launch', group.group)?.details;
  const knownIds = (known?.['instances'] ?? '').split(',').filter(Boolean);
  const dead = knownIds.length > 0 && knownIds.every((id) => gone.has(id));
  const attempt = Number(known?.['attempt'] ?? '1') + (dead ? 1 : 0);
  const repeat = known !== undefined && !dead;
  const userData = input.userData.get(group.group) ?? '';
  const digest = createHash('sha256').update(userData).digest('hex');
  if (repeat && known['userDataSha256'] !== undefined && known['userDataSha256'] !== digest)
    throw new KubemixError(
      `create-hosts: the user data of group ${group.group} differs from what its recorded launch sent (the spec changed since); run kubemix down, then up`,
    );
  const resolved = input.images.get(group.group);
  const image =
    repeat && known['imageId']
      ? {
          imageId: known['imageId'],
          ...(known['rootDeviceName'] ? { rootDeviceName: known['rootDeviceName'] } : {}),
          ...(known['rootSnapshotId'] ? { rootSnapshotId: known['rootSnapshotId'] } : {}),
        }
      : resolved;
  if (!image) throw new KubemixError(`create-hosts: no image resolved for group ${group.group}`);
  // The first attempt keeps the token earlier kubemix versions derived, so their states resume.
  const token = clientToken(
    input.plan.cluster,
    group.group,
    attempt === 1 ? input.buildId : `${input.buildId}#${attempt}`,
  );
  return {
    token,
    image,
    userData,
    details: {
      clientToken: token,
      attempt: String(attempt),
      imageId: image.imageId,
      ...(image.rootDeviceName ? { rootDeviceName: image.rootDeviceName } : {}),
      ...(image.rootSnapshotId ? { rootSnapshotId: image.rootSnapshotId } : {}),
      userDataSha256: digest,
    },
  };
}

async function runInstances(
  ctx: Ec2Context,
  group: InstanceGroupPlan,
  input: CreateHostsInput,
  launch: Launch,
) {
  const { image } = launch;
  const role = launchRole(group.group);
  const name = `kubemix-${ctx.cluster}-${group.group}`;
  const tags = ownTags(ctx, role, name);
  const doing = `create-hosts: launching group ${group.group}`;
  // The subnet is kubemix's own only when it made the network; the spec's subnet unknown is an input error.
  const own: Ec2ResourceKind[] =
    input.plan.network.kind === 'create' ? ['security-group', 'subnet'] : ['security-group'];
  try {
    return await withOwnIds(ctx, doing, own, () =>
      ctx.aws.ec2.send(
        new RunInstancesCommand({
          ImageId: image.imageId,
          InstanceType: group.instanceType as never,
          MinCount: group.nodes.length,
          MaxCount: group.nodes.length,
          ClientToken: launch.token,
          KeyName: input.network.keyName,
          UserData: Buffer.from(launch.userData).toString('base64'),
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
      ),
    );
  } catch (error) {
    const cause = error instanceof KubemixError && error.cause !== undefined ? error.cause : error;
    const code = awsErrorCode(cause) ?? '';
    if (/LimitExceeded$|^InsufficientInstanceCapacity$/.test(code) && code !== 'RequestLimitExceeded')
      throw new KubemixError(
        `create-hosts: ${group.nodes.length} x ${group.instanceType} for group ${group.group}: ${code} (${(cause as Error).message}); raise the quota or lower the count, then run kubemix down or up again`,
        { cause },
      );
    throw describeAwsError(doing, error);
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
      const seen = await clusterInstances(ctx, ['pending', 'running', ...GONE_STATES]).catch((error) => {
        throw describeAwsError('create-hosts: waiting for the instances', error);
      });
      diedAtLaunch(ctx, plan, seen);
      const instances = seen.filter((i) => ['pending', 'running'].includes(i.State?.Name ?? ''));
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

/**
 * Fails at once, with EC2's StateReason, when an instance of a group's recorded launch is gone:
 * an instance that terminates right after launch (EBS volume limit, a KMS key it may not use, an
 * internal error: EC2 User Guide, "Troubleshoot Amazon EC2 instance launch issues", "Instance
 * terminates immediately") never runs, and waiting for it would only end in a timeout.
 */
function diedAtLaunch(ctx: Ec2Context, plan: Ec2Plan, instances: Instance[]): void {
  for (const group of plan.groups) {
    const ids = (recorded(ctx, 'launch', group.group)?.details?.['instances'] ?? '').split(',');
    const dead = instances.find(
      (i) => ids.includes(i.InstanceId ?? '') && GONE_STATES.includes(i.State?.Name ?? ''),
    );
    if (!dead) continue;
    const node = group.nodes[dead.AmiLaunchIndex ?? -1] ?? group.group;
    const code = dead.StateReason?.Code ?? '';
    const message = dead.StateReason?.Message ?? 'no reason given';
    const reason = code && !message.startsWith(code) ? `${code}: ${message}` : message;
    throw new KubemixError(
      `create-hosts: instance ${dead.InstanceId} of group ${group.group} (${node}) terminated at launch: ${reason}; the next kubemix up launches the group again once all its instances are gone (kubemix down removes them)`,
    );
  }
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
