import { DescribeInternetGatewaysCommand, DescribeVpcsCommand, type Instance } from '@aws-sdk/client-ec2';
import { GetServiceQuotaCommand } from '@aws-sdk/client-service-quotas';
import { awsErrorCode } from './client.js';
import type { Ec2Context } from './context.js';
import { isOurs } from './identity.js';
import { describeInstances } from './instances.js';
import type { Ec2Plan } from './plan.js';

/**
 * The account quotas a build can hit after the network exists, read with Service Quotas
 * GetServiceQuota. Codes: EC2 User Guide, "Amazon EC2 service quotas" (On-Demand instance
 * quotas are in vCPUs per instance family group); Amazon VPC User Guide, "Amazon VPC quotas".
 */
export const QUOTAS = {
  standardVcpus: {
    service: 'ec2',
    code: 'L-1216C47A',
    name: 'Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances',
  },
  vpcs: { service: 'vpc', code: 'L-F678F1CE', name: 'VPCs per Region' },
  internetGateways: { service: 'vpc', code: 'L-A4707A72', name: 'Internet gateways per Region' },
} as const;

type Quota = (typeof QUOTAS)[keyof typeof QUOTAS];

/**
 * Instance families the Standard quota counts (the letters before the generation digit: t3 → t,
 * im4gn → im). Others (G, P, X, Inf, Trn, DL, HPC, Mac...) have quotas of their own.
 */
const STANDARD_FAMILIES = new Set(['a', 'c', 'd', 'h', 'i', 'im', 'is', 'm', 'r', 't', 'z']);

/** True for an instance type the Standard On-Demand vCPU quota counts. */
export function isStandardType(instanceType: string): boolean {
  return STANDARD_FAMILIES.has(/^([a-z]+)\d/.exec(instanceType)?.[1] ?? '');
}

/**
 * prepare-provider's quota checks: the planned Standard vCPUs plus those running now (not this
 * cluster's) against L-1216C47A; when kubemix creates the network, one more VPC and internet
 * gateway against their per-region quotas (unless this cluster's exist already). A quota
 * Service Quotas does not answer (no permission, not served) is skipped with a progress line:
 * RunInstances still says so, only later. `vcpus` gives the vCPUs of every type involved.
 */
export async function quotaProblems(
  ctx: Ec2Context,
  plan: Ec2Plan,
  vcpus: (instanceType: string) => number | undefined,
  running: Instance[],
): Promise<string[]> {
  const problems: string[] = [];
  const region = ctx.aws.region;
  const standard = plan.groups.filter((g) => isStandardType(g.instanceType));
  const needed = standard.reduce((n, g) => n + g.nodes.length * (vcpus(g.instanceType) ?? 0), 0);
  if (needed > 0) {
    const limit = await quotaValue(ctx, QUOTAS.standardVcpus);
    if (limit !== undefined) {
      const inUse = running
        .filter((i) => !isOurs(ctx, i.Tags) && isStandardType(String(i.InstanceType ?? '')))
        .reduce((n, i) => n + instanceVcpus(i, vcpus), 0);
      if (inUse + needed > limit)
        problems.push(
          `${standard[0]!.specPath}.instanceType: the cluster needs ${needed} vCPUs of On-Demand Standard instances and ${inUse} run already, above the quota ${QUOTAS.standardVcpus.code} of ${limit} in ${region}; request an increase (Service Quotas) or choose smaller instance types`,
        );
    }
  }
  if (plan.network.kind === 'create') {
    const vpcs = (await ctx.aws.ec2.send(new DescribeVpcsCommand({}))).Vpcs ?? [];
    if (!vpcs.some((v) => isOurs(ctx, v.Tags)))
      problems.push(...(await oneMore(ctx, QUOTAS.vpcs, vpcs.length, 'VPC')));
    const gateways = (await ctx.aws.ec2.send(new DescribeInternetGatewaysCommand({}))).InternetGateways ?? [];
    if (!gateways.some((g) => isOurs(ctx, g.Tags)))
      problems.push(...(await oneMore(ctx, QUOTAS.internetGateways, gateways.length, 'internet gateway')));
  }
  return problems;
}

/** Instances running now in the region, whoever owns them: the vCPU quota is the account's. */
export const runningInstances = (ctx: Ec2Context): Promise<Instance[]> =>
  describeInstances(ctx, undefined, ['pending', 'running']);

async function oneMore(ctx: Ec2Context, quota: Quota, existing: number, what: string): Promise<string[]> {
  const limit = await quotaValue(ctx, quota);
  if (limit === undefined || existing + 1 <= limit) return [];
  return [
    `provider.subnetId: kubemix would create a ${what}, but ${ctx.aws.region} has ${existing} of ${limit} (quota ${quota.code}, ${quota.name}); delete one, request an increase, or name an existing subnet`,
  ];
}

async function quotaValue(ctx: Ec2Context, quota: Quota): Promise<number | undefined> {
  try {
    const answer = await ctx.aws
      .serviceQuotas()
      .send(new GetServiceQuotaCommand({ ServiceCode: quota.service, QuotaCode: quota.code }));
    return answer.Quota?.Value;
  } catch (error) {
    ctx.progress(
      `quota ${quota.code} (${quota.name}) not checked: ${awsErrorCode(error) ?? (error as Error).message}`,
    );
    return undefined;
  }
}

/** vCPUs of a running instance: its CPU options, else its type's default. */
function instanceVcpus(instance: Instance, vcpus: (instanceType: string) => number | undefined): number {
  const cpu = instance.CpuOptions;
  if (cpu?.CoreCount && cpu.ThreadsPerCore) return cpu.CoreCount * cpu.ThreadsPerCore;
  return vcpus(String(instance.InstanceType ?? '')) ?? 0;
}
