import { z } from 'zod';
import { WINDOWS_VERSIONS } from '../types/windows.js';
import * as field from './field-schemas.js';
import { connectionSchema, credentialsSchema } from './host-access.js';
import { DEFAULT_WINDOWS_VERSION, WINDOWS_KUBELET_DEFAULT_ARGS } from './spec-defaults.js';

/** The spec's `nodes:` section: the control plane and the worker groups. */

const sizing = {
  instanceType: field.ec2InstanceTypeSchema
    .optional()
    .describe('EC2 only. Default t3.large (linux), m5.large (windows).'),
  vcpus: z.number().int().min(1).max(128).optional(),
  memoryGiB: z.number().min(1).max(1024).optional(),
  diskGiB: z.number().int().min(10).max(65536).optional(),
};

export const controlPlaneSchema = z.strictObject({
  count: z
    .union([z.literal(1), z.literal(3), z.literal(5)], {
      error: 'must be 1, 3 or 5 (etcd needs an odd quorum)',
    })
    .default(1),
  ...sizing,
  connection: connectionSchema.default('ssh'),
  endpoint: field.endpointSchema
    .optional()
    .describe('Load-balanced API endpoint host[:port]; required with 3 or 5 controllers on static hosts.'),
  credentials: credentialsSchema.optional(),
  kubeletExtraArgs: field.kubeletArgsSchema.default([]),
});

const workerGroupObject = z.strictObject({
  name: field.dnsLabelSchema,
  os: z.enum(['linux', 'windows']),
  windowsVersion: z
    .enum(WINDOWS_VERSIONS)
    .optional()
    .describe(`Windows Server version: ${WINDOWS_VERSIONS.join(', ')} (windows groups only; default 2022).`),
  count: z.number().int().min(0).max(1000),
  ...sizing,
  connection: connectionSchema.optional().describe('Default: ssh for linux, winrm for windows.'),
  credentials: credentialsSchema.optional(),
  kubeletExtraArgs: field.kubeletArgsSchema
    .optional()
    .describe('Default for windows groups: the Windows guide reservations.'),
  taint: z.boolean().default(false).describe('Windows groups: add the os=windows:NoSchedule taint.'),
  hyperV: z
    .boolean()
    .default(false)
    .describe(
      'Windows groups: install Hyper-V too (for Hyper-V isolated containers); the hosts must support virtualization.',
    ),
});

/**
 * A worker group with its OS-dependent defaults applied, so consumers never re-derive them:
 * windows groups get windowsVersion 2022, connection winrm and the Windows kubelet reservations;
 * linux groups get connection ssh and no extra kubelet args. Given values always win
 * (given kubelet args replace the defaults). A windowsVersion on a linux group is kept here
 * and reported by the cross-field rules.
 */
export const workerGroupSchema = workerGroupObject.transform((group) => {
  const windows = group.os === 'windows';
  return {
    ...group,
    windowsVersion: group.windowsVersion ?? (windows ? DEFAULT_WINDOWS_VERSION : undefined),
    connection: group.connection ?? (windows ? 'winrm' : 'ssh'),
    kubeletExtraArgs: group.kubeletExtraArgs ?? (windows ? [...WINDOWS_KUBELET_DEFAULT_ARGS] : []),
  };
});

export type WorkerGroup = z.output<typeof workerGroupSchema>;
