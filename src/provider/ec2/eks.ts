import { KubemixError } from '../../errors/index.js';
// The one PowerShell quoting helper (a pure function; providers use no transport otherwise).
import { psQuote } from '../../quote/index.js';
import { addressInCidr, parseCidr } from '../../spec/cidr.js';
import { WINDOWS_KUBELET_DEFAULT_ARGS } from '../../spec/spec-defaults.js';
import type { WindowsVersion } from '../../types/windows.js';
import { describeAwsError } from './client.js';
import { kubernetesClusterTag, type Tag } from './tags.js';

/**
 * Joining Windows EC2 instances to an existing EKS cluster (stretch; not wired into `kubemix up`
 * yet): what DescribeCluster tells, the EKS-optimized Windows AMI parameter, the tags EKS needs and
 * the `<powershell>` user data that runs the AMI's own bootstrap script.
 */

/** What a Windows node needs to know of its EKS cluster. */
export interface EksClusterFacts {
  name: string;
  endpoint: string;
  /** Base64 PEM of the cluster CA (DescribeCluster certificateAuthority.data). */
  certificateAuthority: string;
  /** `1.31` */
  version: string;
  /** The cluster's service CIDR; the DNS service is its 10th address. */
  serviceCidr: string;
  /** The security group EKS created for the cluster (control plane <-> nodes); nodes join it. */
  clusterSecurityGroupId?: string;
}

/**
 * DescribeCluster (EKS API Reference): endpoint, CA, version, service CIDR and cluster security
 * group. The SDK loads only when asked.
 */
export async function describeEksCluster(options: {
  region: string;
  endpoint?: string | undefined;
  cluster: string;
}): Promise<EksClusterFacts> {
  const { EKSClient, DescribeClusterCommand } = await import('@aws-sdk/client-eks');
  const eks = new EKSClient({
    region: options.region,
    retryMode: 'adaptive',
    maxAttempts: 10,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  });
  try {
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: options.cluster }));
    const facts = {
      name: options.cluster,
      endpoint: cluster?.endpoint,
      certificateAuthority: cluster?.certificateAuthority?.data,
      version: cluster?.version,
      serviceCidr: cluster?.kubernetesNetworkConfig?.serviceIpv4Cidr,
    };
    const missing = Object.entries(facts)
      .filter(([, v]) => !v)
      .map(([k]) => k);
    if (missing.length > 0)
      throw new KubemixError(
        `EKS cluster ${options.cluster} is not ready to join: DescribeCluster gave no ${missing.join(', ')}`,
      );
    const securityGroup = cluster?.resourcesVpcConfig?.clusterSecurityGroupId;
    return {
      ...(facts as EksClusterFacts),
      ...(securityGroup ? { clusterSecurityGroupId: securityGroup } : {}),
    };
  } catch (error) {
    throw describeAwsError(`provider.eks.cluster: describing EKS cluster ${options.cluster}`, error);
  } finally {
    eks.destroy();
  }
}

/** The cluster DNS service's address: the 10th of the service CIDR (EKS: 10.100.0.10 or 172.20.0.10). */
export function dnsClusterIp(serviceCidr: string): string {
  if (!parseCidr(serviceCidr)) throw new TypeError(`not an IPv4 CIDR: ${serviceCidr}`);
  return addressInCidr(serviceCidr, 10);
}

/**
 * The public SSM parameter of the EKS-optimized Windows AMI for a Kubernetes minor (EKS User
 * Guide, "Retrieve recommended Microsoft Windows AMI IDs").
 */
export function eksWindowsImageParameter(version: string, windowsVersion: WindowsVersion): string {
  const minor = /^(\d+\.\d+)/.exec(version)?.[1];
  if (!minor) throw new TypeError(`not a Kubernetes version: ${version}`);
  return `/aws/service/ami-windows-latest/Windows_Server-${windowsVersion}-English-Core-EKS_Optimized-${minor}/image_id`;
}

/** EKS finds its nodes by `kubernetes.io/cluster/<eks cluster>=owned` (EKS User Guide, "Self-managed nodes"). */
export const eksNodeTags = (eksCluster: string): Tag[] => [
  { Key: kubernetesClusterTag(eksCluster), Value: 'owned' },
];

/**
 * Windows user data joining an EKS cluster: the EKS-optimized AMI's
 * `%ProgramFiles%\Amazon\EKS\Start-EKSBootstrap.ps1` with the cluster's name, endpoint, CA and
 * DNS address (no DescribeCluster per node), and the Windows kubelet defaults unless given
 * (EKS User Guide, "Launching self-managed Windows nodes"; shared/RESEARCH.md).
 */
export function eksWindowsUserData(options: {
  cluster: EksClusterFacts;
  kubeletExtraArgs?: readonly string[];
}): string {
  const { cluster } = options;
  const args = (options.kubeletExtraArgs ?? WINDOWS_KUBELET_DEFAULT_ARGS).join(' ');
  return [
    '<powershell>',
    "$ErrorActionPreference = 'Stop'",
    "$kmBootstrap = Join-Path $env:ProgramFiles 'Amazon\\EKS\\Start-EKSBootstrap.ps1'",
    // Splatted: one named argument per line, every value a quoted literal.
    '$kmArgs = @{',
    `  EKSClusterName = ${psQuote(cluster.name)}`,
    `  APIServerEndpoint = ${psQuote(cluster.endpoint)}`,
    `  Base64ClusterCA = ${psQuote(cluster.certificateAuthority)}`,
    `  DNSClusterIP = ${psQuote(dnsClusterIp(cluster.serviceCidr))}`,
    `  KubeletExtraArgs = ${psQuote(args)}`,
    '}',
    '& $kmBootstrap @kmArgs',
    '</powershell>',
    '',
  ].join('\n');
}
