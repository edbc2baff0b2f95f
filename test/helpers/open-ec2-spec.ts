/**
 * An EC2 spec whose operatorCidr opens the cluster to the whole internet: valid, with one warning
 * (src/spec/spec-warnings.ts). `extra` is appended to the Windows worker group's last line.
 */
export const openEc2Spec = (extra = '') => `name: openlab
provider:
  type: ec2
  region: eu-west-1
  operatorCidr: 0.0.0.0/0
nodes:
  controlPlane: { count: 1 }
  workers:
    - name: win
      os: windows
      count: 1${extra}
`;
