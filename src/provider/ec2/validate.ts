import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSubnetsCommand,
  type Subnet,
} from '@aws-sdk/client-ec2';
import { KubemixError } from '../../errors/index.js';
import { cidrsOverlap, parseCidr } from '../../spec/cidr.js';
import { describeAwsError } from './client.js';
import type { Ec2Context } from './context.js';
import { identityProblems } from './identity-check.js';
import { type ResolvedImage, resolveImages } from './images.js';
import type { Ec2Plan } from './plan.js';
import { isStandardType, quotaProblems, runningInstances } from './quotas.js';
import { regionProblems } from './region-check.js';
import { isWindowsComputerName } from './user-data.js';

/** What prepare-provider learned: where to create, and the AMI of each group. */
export interface Ec2Preflight {
  availabilityZone: string;
  images: Map<string, ResolvedImage>;
  /** The existing subnet's VPC, when the spec names a subnet. */
  existing?: { vpcId: string; subnetId: string; cidr: string };
}

/** Every EC2 input problem found before anything is created. Exit code 2. */
export class Ec2InputError extends KubemixError {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'), { exitCode: 2 });
  }
}

/**
 * prepare-provider: checks everything the spec asks of EC2 before anything is created and
 * reports every problem at once: the region, an availability zone offering every instance type,
 * each group's AMI (exists, fits the OS and the instance type's architecture), an existing subnet
 * (and that its range stays clear of the pod and service CIDRs), Windows computer names, each
 * diskGiB against its AMI's root volume, the account's vCPU, VPC and internet gateway quotas
 * (quotas.ts), and that no other cluster of the name lives in the region. Creates nothing on AWS; records the
 * build's identity (id and region) in the state. The call count does not grow with the number
 * of instances.
 */
export async function preflight(
  ctx: Ec2Context,
  plan: Ec2Plan,
  clusterRanges: { podCIDR: string; serviceCIDR: string },
): Promise<Ec2Preflight> {
  const region = ctx.aws.region;
  const regionIssues = await regionProblems(ctx);
  if (regionIssues.length > 0) throw new Ec2InputError(regionIssues);
  const ownership = await call('looking for other clusters of this name', () => identityProblems(ctx, plan));
  if (ownership.length > 0) throw new Ec2InputError(ownership);
  const problems: string[] = [];
  for (const group of plan.groups)
    if (group.os === 'windows')
      for (const node of group.nodes)
        if (!isWindowsComputerName(node))
          problems.push(`${group.specPath}.name: Windows computer name ${node} is longer than 15 characters`);

  let existing: Ec2Preflight['existing'];
  let zones: string[];
  if (plan.network.kind === 'existing') {
    const subnet = await describeSubnet(ctx, plan.network.subnetId);
    if (!subnet) {
      problems.push(`provider.subnetId: subnet ${plan.network.subnetId} not found in ${region}`);
      zones = [];
    } else {
      existing = { vpcId: subnet.VpcId ?? '', subnetId: plan.network.subnetId, cidr: subnet.CidrBlock ?? '' };
      zones = subnet.AvailabilityZone ? [subnet.AvailabilityZone] : [];
      if (plan.network.vpcId && subnet.VpcId !== plan.network.vpcId)
        problems.push(
          `provider.subnetId: subnet ${plan.network.subnetId} is in ${subnet.VpcId}, not in provider.vpcId ${plan.network.vpcId}`,
        );
      const subnetRange = parseCidr(existing.cidr);
      for (const [field, value] of Object.entries(clusterRanges)) {
        const range = parseCidr(value);
        if (subnetRange && range && cidrsOverlap(subnetRange, range))
          problems.push(
            `provider.subnetId: subnet ${plan.network.subnetId} (${existing.cidr}) overlaps network.${field} (${value})`,
          );
      }
    }
  } else {
    const answer = await call('listing the availability zones', () =>
      ctx.aws.ec2.send(
        new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }),
      ),
    );
    zones = (answer.AvailabilityZones ?? []).flatMap((z) => (z.ZoneName ? [z.ZoneName] : [])).sort();
    if (zones.length === 0) problems.push(`provider.region: no availability zone is available in ${region}`);
  }

  const types = [...new Set(plan.groups.map((g) => g.instanceType))];
  const offered = await offerings(ctx, types, zones);
  const zone = zones.find((z) => types.every((t) => offered.get(t)?.has(z)));
  if (zones.length > 0 && zone === undefined)
    for (const group of plan.groups)
      if (!zones.some((z) => offered.get(group.instanceType)?.has(z)))
        problems.push(
          `${group.specPath}.instanceType: ${group.instanceType} is not offered in ${plan.network.kind === 'existing' ? `the subnet's zone ${zones[0]}` : region}`,
        );
  // Types offered separately but never together in one zone.
  if (zones.length > 0 && zone === undefined && problems.length === 0)
    problems.push(`provider.region: no availability zone in ${region} offers all of ${types.join(', ')}`);

  const { images, problems: imageProblems } = await resolveImages(ctx, plan.groups);
  problems.push(...imageProblems);
  const running = await call('listing the running instances', () => runningInstances(ctx));
  const described = await describeTypes(ctx, [
    ...new Set([
      ...types.filter((t) => offered.get(t)?.size),
      ...running.flatMap((i) => (i.InstanceType && isStandardType(i.InstanceType) ? [i.InstanceType] : [])),
    ]),
  ]);
  for (const group of plan.groups) {
    const image = images.get(group.group);
    const archs = described.get(group.instanceType)?.architectures;
    if (image && archs && !archs.includes(image.architecture))
      problems.push(
        `provider.images.${group.os}: AMI ${image.imageId} is ${image.architecture}; ${group.instanceType} (${group.specPath}) runs ${archs.join(', ')}`,
      );
    // RunInstances refuses a root volume smaller than the snapshot, after the network exists.
    if (
      image?.rootVolumeGiB &&
      group.rootVolumeGiB !== undefined &&
      group.rootVolumeGiB < image.rootVolumeGiB
    )
      problems.push(
        `${group.specPath}.diskGiB: ${group.rootVolumeGiB} GiB is smaller than the root volume of AMI ${image.imageId} (${image.rootVolumeGiB} GiB)`,
      );
  }
  if (problems.length === 0)
    problems.push(
      ...(await call('reading the account quotas', () =>
        quotaProblems(ctx, plan, (type) => described.get(type)?.vcpus, running),
      )),
    );
  // Groups sharing an image or type would repeat the same line.
  if (problems.length > 0) throw new Ec2InputError([...new Set(problems)]);
  const result: Ec2Preflight = { availabilityZone: zone ?? zones[0]!, images };
  if (existing) result.existing = existing;
  return result;
}

async function call<T>(doing: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw describeAwsError(`prepare-provider: ${doing}`, error);
  }
}

async function describeSubnet(ctx: Ec2Context, subnetId: string): Promise<Subnet | undefined> {
  const answer = await call(`describing subnet ${subnetId}`, () =>
    ctx.aws.ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'subnet-id', Values: [subnetId] }] })),
  );
  return answer.Subnets?.[0];
}

/** Zones offering each instance type (one call, filtered; paginated). */
async function offerings(
  ctx: Ec2Context,
  types: string[],
  zones: string[],
): Promise<Map<string, Set<string>>> {
  const offered = new Map<string, Set<string>>(types.map((t) => [t, new Set()]));
  if (zones.length === 0) return offered;
  let token: string | undefined;
  do {
    const answer = await call('listing instance type offerings', () =>
      ctx.aws.ec2.send(
        new DescribeInstanceTypeOfferingsCommand({
          LocationType: 'availability-zone',
          Filters: [
            { Name: 'instance-type', Values: types },
            { Name: 'location', Values: zones },
          ],
          ...(token ? { NextToken: token } : {}),
        }),
      ),
    );
    for (const o of answer.InstanceTypeOfferings ?? [])
      if (o.InstanceType && o.Location) offered.get(o.InstanceType)?.add(o.Location);
    token = answer.NextToken;
  } while (token);
  return offered;
}

/** Architectures and default vCPUs of each instance type (one call). */
async function describeTypes(
  ctx: Ec2Context,
  types: string[],
): Promise<Map<string, { architectures: string[]; vcpus?: number }>> {
  const found = new Map<string, { architectures: string[]; vcpus?: number }>();
  if (types.length === 0) return found;
  const answer = await call('describing the instance types', () =>
    ctx.aws.ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: types as never })),
  );
  for (const t of answer.InstanceTypes ?? [])
    if (t.InstanceType)
      found.set(t.InstanceType, {
        architectures: t.ProcessorInfo?.SupportedArchitectures ?? [],
        ...(t.VCpuInfo?.DefaultVCpus ? { vcpus: t.VCpuInfo.DefaultVCpus } : {}),
      });
  return found;
}
