import { z } from 'zod';
import { LOCALHOST } from '../types/localhost.js';
import * as field from './field-schemas.js';
import { credentialsSchema } from './host-access.js';
import { imageSourceSchema } from './image-source.js';
import {
  DEFAULT_LIBVIRT_BOOT_TIMEOUT_MINUTES,
  DEFAULT_LIBVIRT_CIDR,
  DEFAULT_TUNNEL_PORT,
  DEFAULT_WINDOWS_INSTALL_TIMEOUT_MINUTES,
  WINDOWS_VXLAN_PORT,
} from './spec-defaults.js';

/** The libvirt provider: guests on one or more hypervisors, joined by a VXLAN tunnel. */

export const hypervisorSchema = z.strictObject({
  name: field.dnsLabelSchema,
  address: field.hostAddressSchema.describe(
    'Hypervisor host; "localhost" means the machine running kubemix.',
  ),
  port: z.number().int().min(1).max(65535).optional(),
  uri: z
    .string()
    .optional()
    .describe('libvirt connection URI as seen on the hypervisor; default qemu:///system.'),
  credentials: credentialsSchema.optional(),
});

export type Hypervisor = z.output<typeof hypervisorSchema>;

/** The hypervisor a libvirt spec without hypervisors uses: the machine running kubemix. */
export const LOCAL_HYPERVISOR: Readonly<Hypervisor> = Object.freeze({
  name: 'hypervisor-01',
  address: LOCALHOST.name,
});

export const libvirtProviderSchema = z.strictObject({
  type: z.literal('libvirt'),
  hypervisors: z
    .array(hypervisorSchema)
    .default([])
    .describe('Empty: the local machine (hypervisor-01 at localhost) is the only hypervisor.'),
  network: z
    .strictObject({
      cidr: field.cidrSchema
        .default(DEFAULT_LIBVIRT_CIDR)
        .describe('NAT network of the guests; every guest gets a DHCP reservation in it.'),
    })
    .prefault({})
    .describe(
      'The libvirt network kubemix creates on each hypervisor, named <cluster>.<hypervisor>.network.',
    ),
  uri: z.string().optional().describe('libvirt URI on the hypervisors (default qemu:///system).'),
  knownHosts: z
    .string()
    .min(1)
    .optional()
    .describe(
      "known_hosts file with the remote hypervisors' SSH keys (default ~/.ssh/known_hosts); checked strictly.",
    ),
  tunnel: z
    .strictObject({
      port: z
        .number()
        .int()
        .min(1)
        .max(65535)
        .refine((port) => port !== WINDOWS_VXLAN_PORT, {
          message: `must not be ${WINDOWS_VXLAN_PORT}: the guests' flannel VXLAN uses it`,
        })
        .default(DEFAULT_TUNNEL_PORT),
      vni: z
        .number()
        .int()
        .min(1)
        .max(16777215)
        .optional()
        .describe('Default: derived from the cluster name (100000-16099999).'),
    })
    .prefault({})
    .describe(
      'VXLAN between the hypervisors (several hypervisors only): one L2 for the guests of all of them. UDP port open between the hypervisors.',
    ),
  bootTimeoutMinutes: z
    .number()
    .int()
    .min(1)
    .max(1440)
    .default(DEFAULT_LIBVIRT_BOOT_TIMEOUT_MINUTES)
    .describe(
      'Time each guest has, once running (a Windows guest: once installed), to answer on its SSH or WinRM port (wait-for-hosts); TCG on a busy hypervisor needs more.',
    ),
  windows: z
    .strictObject({
      installTimeoutMinutes: z
        .number()
        .int()
        .min(1)
        .max(1440)
        .default(DEFAULT_WINDOWS_INSTALL_TIMEOUT_MINUTES)
        .describe(
          'Time for the unattended install and first logon of each Windows guest (TCG needs far more).',
        ),
      goldenImage: z
        .boolean()
        .default(false)
        .describe(
          'Generalize the first Windows install on each hypervisor (sysprep) into a cached golden volume; Windows guests are overlays on it, specialized by a small answer file.',
        ),
    })
    .prefault({}),
  images: z
    .strictObject({
      linux: imageSourceSchema
        .optional()
        .describe(
          'Linux base image (qcow2). Default: the Debian cloud image pinned in playbooks/versions.yaml.',
        ),
      windows: imageSourceSchema
        .optional()
        .describe('Windows Server evaluation ISO (Windows workers); kubemix never downloads one unasked.'),
      virtio: imageSourceSchema.optional().describe('virtio-win driver ISO (Windows workers).'),
    })
    .prefault({}),
  storagePool: field.dnsLabelSchema
    .default('kubemix')
    .describe(
      'libvirt storage pool for guest disks and cached base images (a directory pool, made when missing).',
    ),
  dataDir: z
    .string()
    .regex(/^\/[^\s'"\\]*$/, 'must be an absolute path without spaces, quotes or backslashes')
    .default('/var/lib/kubemix')
    .describe(
      'Directory on each hypervisor for the pool (<dataDir>/pool) and per-cluster files (<dataDir>/clusters/<name>).',
    ),
});
