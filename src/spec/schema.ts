import { z } from 'zod';
import { ec2ProviderSchema } from './ec2-provider-schema.js';
import * as field from './field-schemas.js';
import type { Connection } from './host-access.js';
import { LOCAL_HYPERVISOR, libvirtProviderSchema } from './libvirt-provider-schema.js';
import { controlPlaneSchema, workerGroupSchema } from './node-schemas.js';
import {
  DEFAULT_POD_CIDR,
  DEFAULT_SERVICE_CIDR,
  WINDOWS_MIN_VNI,
  WINDOWS_VXLAN_PORT,
} from './spec-defaults.js';
import { type staticHostSchema, staticProviderSchema } from './static-provider-schema.js';

/**
 * The cluster spec model. One schema serves YAML specs, Kubeinit's short form (mapped onto
 * it) and `kubemix schema` (JSON Schema for editors). Its parts live beside it, one concern
 * each (defaults, access, images, providers, nodes); this module assembles them and
 * re-exports them, so importers have one place to import the spec model from.
 */

export { type Connection, credentialsSchema, SECRET_REF_MESSAGE, secretRefSchema } from './host-access.js';
export { type ImageSource, imageSourceSchema, isImageUrl } from './image-source.js';
export { type Hypervisor, hypervisorSchema, LOCAL_HYPERVISOR } from './libvirt-provider-schema.js';
export { controlPlaneSchema, type WorkerGroup, workerGroupSchema } from './node-schemas.js';
export * from './spec-defaults.js';
export { staticHostSchema } from './static-provider-schema.js';

export const providerSchema = z.discriminatedUnion('type', [
  staticProviderSchema,
  libvirtProviderSchema,
  ec2ProviderSchema,
]);

const clusterSpecObject = z
  .strictObject({
    apiVersion: z.literal('kubemix/v1').default('kubemix/v1'),
    name: field.dnsLabelSchema.describe('Cluster name; also the default cluster directory name.'),
    kubernetes: z
      .strictObject({
        version: field.kubernetesVersionSchema
          .optional()
          .describe('Default: the pinned version in playbooks/versions.yaml.'),
      })
      .prefault({}),
    network: z
      .strictObject({
        podCIDR: field.cidrSchema.default(DEFAULT_POD_CIDR),
        serviceCIDR: field.cidrSchema.default(DEFAULT_SERVICE_CIDR),
        flannel: z
          .strictObject({
            backend: z.literal('vxlan').default('vxlan'),
            vni: z.number().int().min(1).max(16777215).default(WINDOWS_MIN_VNI),
            port: z.number().int().min(1).max(65535).default(WINDOWS_VXLAN_PORT),
          })
          .prefault({}),
      })
      .prefault({}),
    provider: providerSchema,
    nodes: z
      .strictObject({
        controlPlane: controlPlaneSchema.prefault({}),
        workers: z.array(workerGroupSchema).default([]),
      })
      .prefault({})
      .describe('Default: one controller and no workers.'),
    versions: field.versionOverridesSchema
      .optional()
      .describe('Overrides of playbooks/versions.yaml entries.'),
    artifacts: z
      .strictObject({
        dir: z
          .string()
          .min(1)
          .describe(
            'Directory made by `kubemix artifacts` (relative to the spec file); nodes install from it.',
          ),
      })
      .optional()
      .describe('Offline mode: every download comes from this local directory instead of the internet.'),
    vars: z
      .record(field.varNameSchema, z.unknown())
      .optional()
      .describe(
        'Extra variables for the cluster playbooks (like ansible-playbook -e); they win over kubemix defaults.',
      ),
  })
  .describe('A kubemix cluster spec.');

type ParsedSpec = z.output<typeof clusterSpecObject>;
type ParsedStaticProvider = Extract<ParsedSpec['provider'], { type: 'static' }>;

/** A static host; its connection defaults to its group's connection. */
export type StaticHost = z.output<typeof staticHostSchema> & { connection: Connection };
/** The static provider section with every host's connection resolved. */
export type StaticProvider = Omit<ParsedStaticProvider, 'hosts'> & { hosts: StaticHost[] };
export type LibvirtProvider = Extract<ParsedSpec['provider'], { type: 'libvirt' }>;
export type Ec2Provider = Extract<ParsedSpec['provider'], { type: 'ec2' }>;
export type Provider = StaticProvider | LibvirtProvider | Ec2Provider;

/** A validated spec with every default filled in. */
export type ClusterSpec = Omit<ParsedSpec, 'provider'> & { provider: Provider };

// Defaults that depend on other parts of the spec: static hosts inherit their group's
// connection; a libvirt spec without hypervisors gets the local machine.
function resolveDefaults(spec: ParsedSpec): ClusterSpec {
  if (spec.provider.type === 'libvirt') {
    const hypervisors =
      spec.provider.hypervisors.length > 0 ? spec.provider.hypervisors : [{ ...LOCAL_HYPERVISOR }];
    return { ...spec, provider: { ...spec.provider, hypervisors } };
  }
  if (spec.provider.type !== 'static') return { ...spec, provider: spec.provider };
  const groupConnection = (group: string): Connection =>
    group === 'control-plane'
      ? spec.nodes.controlPlane.connection
      : // An unknown group is reported by the cross-field rules; 'ssh' only keeps the value well-typed.
        (spec.nodes.workers.find((w) => w.name === group)?.connection ?? 'ssh');
  const hosts = spec.provider.hosts.map((host) => ({
    ...host,
    connection: host.connection ?? groupConnection(host.group),
  }));
  return { ...spec, provider: { ...spec.provider, hosts } };
}

/**
 * The whole spec: strict objects (unknown keys are errors), defaults filled in (including those
 * that depend on other parts). Cross-field rules live in cross-field-rules.ts and run beside it.
 */
export const clusterSpecSchema = clusterSpecObject.transform(resolveDefaults);

/** A spec as written (before defaults). */
export type ClusterSpecInput = z.input<typeof clusterSpecSchema>;
