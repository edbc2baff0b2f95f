import { z } from 'zod';
import * as field from './field-schemas.js';
import { DEFAULT_EC2_VPC_CIDR } from './spec-defaults.js';

/** The ec2 provider: instances kubemix launches (and removes) in AWS. */

/**
 * An AMI: an id, `ssm:<parameter name>` (a public parameter holding an AMI id), or omitted for
 * kubemix's default lookup.
 */
const amiRef = z
  .string()
  .regex(/^(ami-[0-9a-f]{8,17}|ssm:\/[\w./-]+)$/, 'must be an AMI id (ami-...) or ssm:<parameter name>')
  .describe('AMI id (ami-...), or ssm:/<public parameter> resolving to one.');

export const ec2ProviderSchema = z.strictObject({
  type: z.literal('ec2'),
  region: field.ec2RegionSchema
    .optional()
    .describe('Default: the AWS SDK region (AWS_REGION, the profile in ~/.aws/config).'),
  operatorCidr: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'is required: the range you run kubemix from (SSH, WinRM and the API server are opened to it only; write 0.0.0.0/0 to open them to everyone)'
          : undefined,
    })
    .pipe(field.cidrSchema)
    .describe(
      'Where you run kubemix from: SSH 22, WinRM 5985/5986 and the API server 6443 open to this range only. Required; 0.0.0.0/0 only if you write it.',
    ),
  images: z
    .strictObject({
      linux: amiRef.optional().describe('Default: the Debian 12 amd64 public SSM parameter.'),
      windows: amiRef
        .optional()
        .describe('Default: the Windows_Server-<version>-English-Full-Base public SSM parameter.'),
    })
    .prefault({}),
  connectVia: z
    .enum(['public', 'private'])
    .default('public')
    .describe(
      'Address kubemix connects to: public IP, or private IP (from a bastion inside an existing VPC: needs subnetId).',
    ),
  vpcId: field
    .ec2IdSchema('vpc')
    .optional()
    .describe('Existing VPC (never modified or deleted); needs subnetId.'),
  subnetId: field
    .ec2IdSchema('subnet')
    .optional()
    .describe(
      'Existing subnet (never modified or deleted). Without it kubemix creates VPC, subnet, gateway, routes.',
    ),
  vpcCidr: field.cidrSchema
    .default(DEFAULT_EC2_VPC_CIDR)
    .describe('CIDR of the VPC kubemix creates (ignored with subnetId); its subnet takes the first /24.'),
  endpoint: z
    .string()
    .url()
    .optional()
    .describe('EC2 and SSM endpoint override (tests, other partitions); AWS_ENDPOINT_URL* also work.'),
  winrm: z
    .enum(['http', 'https'])
    .default('http')
    .describe(
      'Windows WinRM listener: http = 5985 with NTLM message encryption (Windows default); https = 5986 with a self-signed certificate whose fingerprint kubemix pins. Never Basic over HTTP.',
    ),
});
