import { describe, expect, it } from 'vitest';
import {
  dnsClusterIp,
  type EksClusterFacts,
  eksNodeTags,
  eksWindowsImageParameter,
  eksWindowsUserData,
} from '../../../src/provider/ec2/eks.js';
import { parsePowerShell } from '../../helpers/parse-powershell.js';

const cluster: EksClusterFacts = {
  name: "team's-eks",
  endpoint: 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
  certificateAuthority: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t',
  version: '1.31',
  serviceCidr: '172.20.0.0/16',
  clusterSecurityGroupId: 'sg-0123456789abcdef0',
};

describe('joining Windows nodes to EKS', () => {
  it('runs the AMI bootstrap script with the cluster facts and the Windows kubelet defaults', async () => {
    const text = eksWindowsUserData({ cluster });
    expect(text.startsWith('<powershell>\n')).toBe(true);
    expect(await parsePowerShell(text.replace('<powershell>\n', '').replace('</powershell>\n', ''))).toEqual(
      [],
    );
    expect(text).toContain("Join-Path $env:ProgramFiles 'Amazon\\EKS\\Start-EKSBootstrap.ps1'");
    expect(text).toContain(
      [
        '$kmArgs = @{',
        "  EKSClusterName = 'team''s-eks'",
        "  APIServerEndpoint = 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com'",
        "  Base64ClusterCA = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t'",
        "  DNSClusterIP = '172.20.0.10'",
        "  KubeletExtraArgs = '--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS --system-reserved=memory=1.5Gi --kube-reserved=memory=0.5Gi'",
        '}',
        '& $kmBootstrap @kmArgs',
      ].join('\n'),
    );
    expect(eksWindowsUserData({ cluster, kubeletExtraArgs: ['--node-labels=a=b'] })).toContain(
      "KubeletExtraArgs = '--node-labels=a=b'",
    );
  });

  it('finds the DNS service at the 10th address, the AMI by its public parameter, the nodes by their tag', () => {
    expect(dnsClusterIp('10.100.0.0/16')).toBe('10.100.0.10');
    expect(eksWindowsImageParameter('1.31.2', '2022')).toBe(
      '/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.31/image_id',
    );
    expect(eksNodeTags('prod')).toEqual([{ Key: 'kubernetes.io/cluster/prod', Value: 'owned' }]);
  });
});
