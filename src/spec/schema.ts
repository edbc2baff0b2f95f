import { z } from 'zod';
import { WINDOWS_VERSIONS } from '../types/windows.js';
import { parseCidr } from './cidr.js';
import { ENV_NAME_MESSAGE, isEnvName } from './field-patterns.js';
import * as field from './field-schemas.js';

/**
 * The cluster spec model. One schema serves YAML specs, Kubeinit's short form (mapped onto
 * it) and `kubemix schema` (JSON Schema for editors).
 */

/** Windows kubelet defaults from the Kubernetes Windows guide: keep ~2 GiB for the OS and kubelet. */
export const WINDOWS_KUBELET_DEFAULT_ARGS = [
  '--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS',
  '--system-reserved=memory=1.5Gi',
  '--kube-reserved=memory=0.5Gi',
] as const;

/** Windows overlay networking (HNS) only works with VNI >= 4096 and UDP port 4789 (flannel-io/flannel#1215). */
export const WINDOWS_MIN_VNI = 4096;
export const WINDOWS_VXLAN_PORT = 4789;

/**
 * UDP port of the VXLAN tunnel between libvirt hypervisors unless the spec names one: not 4789,
 * which the guests' flannel uses (see src/provider/libvirt/tunnel.ts).
 */
export const DEFAULT_TUNNEL_PORT = 4790;
/** Time a Windows guest gets for its unattended install and first logon, unless the spec says. */
export const DEFAULT_WINDOWS_INSTALL_TIMEOUT_MINUTES = 45;

/** Network defaults (kubeadm's service CIDR, flannel's pod CIDR, Kubeinit's guest network). */
export const DEFAULT_POD_CIDR = '10.244.0.0/16';
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
export const DEFAULT_LIBVIRT_CIDR = '10.0.0.0/24';
/** Windows Server version of windows groups that do not name one. */
export const DEFAULT_WINDOWS_VERSION = '2022';

const dnsLabel = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
    'must be a lower-case DNS label (a-z, 0-9, "-"), at most 63 characters',
  );

// abort: a string that is not CIDR-shaped gets one message, not two.
const cidr = z
  .string()
  .regex(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/, {
    message: 'must be an IPv4 CIDR such as 10.244.0.0/16',
    abort: true,
  })
  .refine((v) => parseCidr(v) !== undefined, 'must be an IPv4 CIDR with octets <= 255 and a prefix <= 32');

const hex = (length: number, what: string) =>
  z
    .string()
    .regex(new RegExp(`^[0-9a-fA-F]{${length}}$`), `must be ${length} hexadecimal digits (a ${what} digest)`)
    .transform((v) => v.toLowerCase());

/** True for the http(s) URLs an image may be downloaded from; anything else is a local path. */
export const isImageUrl = (source: string): boolean => /^https?:\/\//.test(source);

/**
 * A disk image or ISO: a local path (copied to each hypervisor) or an http(s) URL (downloaded by
 * each hypervisor once, into its cache). A URL needs a digest: every download is verified.
 */
export const imageSourceSchema = z
  .strictObject({
    source: z.string().min(1).describe('Local path, or an http(s) URL.'),
    sha256: hex(64, 'SHA-256').optional(),
    sha512: hex(128, 'SHA-512').optional().describe('Debian publishes SHA-512 digests (SHA512SUMS).'),
  })
  .superRefine((image, context) => {
    if (image.sha256 !== undefined && image.sha512 !== undefined)
      context.addIssue({ code: 'custom', path: ['sha512'], message: 'give sha256 or sha512, not both' });
    if (isImageUrl(image.source) && image.sha256 === undefined && image.sha512 === undefined)
      context.addIssue({
        code: 'custom',
        path: ['sha256'],
        message: 'is required with a URL: kubemix verifies every download (sha256sum FILE prints it)',
      });
  });

/** The message for any secret that is not a reference. It never repeats the value. */
export const SECRET_REF_MESSAGE =
  'must be a reference { env: VAR } or { file: PATH }; secrets are never written inline';

/** A secret is always a reference: an environment variable or a file, never the value itself. */
export const secretRefSchema = z
  .union([z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })], {
    error: SECRET_REF_MESSAGE,
  })
  .superRefine((ref, ctx) => {
    if ('env' in ref && !isEnvName(ref.env))
      ctx.addIssue({ code: 'custom', path: ['env'], message: ENV_NAME_MESSAGE });
  })
  .describe('A secret given by reference: { env: NAME } or { file: PATH }.');

export const credentialsSchema = z
  .strictObject({
    user: field.userNameSchema.optional().describe('Login user (ssh) or account (winrm).'),
    privateKey: secretRefSchema.optional().describe('SSH private key file (use { file: ... }).'),
    passphrase: secretRefSchema.optional(),
    password: secretRefSchema.optional().describe('WinRM password or sudo password.'),
    agent: z.boolean().optional().describe('Use the ssh-agent at $SSH_AUTH_SOCK.'),
  })
  .describe('Credentials; secret parts are references.');

const connectionSchema = z.enum(['local', 'ssh', 'winrm']);
/** How kubemix reaches a host. */
export type Connection = z.output<typeof connectionSchema>;

const versionString = z.string().regex(/^v?\d+\.\d+\.\d+$/, 'must be a version such as 1.31.2');

export const staticHostSchema = z.strictObject({
  name: dnsLabel.describe('Inventory and node name.'),
  address: field.hostAddressSchema.describe('IP address or DNS name to connect to.'),
  port: z.number().int().min(1).max(65535).optional(),
  group: z.string().min(1).describe('Node group: "control-plane" or the name of a worker group.'),
  connection: connectionSchema.optional().describe('Defaults to the group connection.'),
  credentials: credentialsSchema.optional(),
});

export const hypervisorSchema = z.strictObject({
  name: dnsLabel,
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

/** The VPC kubemix creates when the spec names none (kept clear of the default pod and service CIDRs). */
export const DEFAULT_EC2_VPC_CIDR = '10.0.0.0/16';

/**
 * An AMI: an id, `ssm:<parameter name>` (a public parameter holding an AMI id), or omitted for
 * kubemix's default lookup.
 */
const amiRef = z
  .string()
  .regex(/^(ami-[0-9a-f]{8,17}|ssm:\/[\w./-]+)$/, 'must be an AMI id (ami-...) or ssm:<parameter name>')
  .describe('AMI id (ami-...), or ssm:/<public parameter> resolving to one.');

const ec2ProviderSchema = z.strictObject({
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
    .pipe(cidr)
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
    .describe('Address kubemix connects to: public IP, or private IP (from a bastion inside the VPC).'),
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
  vpcCidr: cidr
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

export const providerSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('static'),
    hosts: z.array(staticHostSchema).min(1, 'must list at least one host'),
    knownHosts: z
      .string()
      .min(1)
      .optional()
      .describe(
        "known_hosts file with the listed hosts' SSH keys (default ~/.ssh/known_hosts); checked strictly.",
      ),
  }),
  z.strictObject({
    type: z.literal('libvirt'),
    hypervisors: z
      .array(hypervisorSchema)
      .default([])
      .describe('Empty: the local machine (hypervisor-01 at localhost) is the only hypervisor.'),
    network: z
      .strictObject({
        cidr: cidr
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
    storagePool: dnsLabel
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
  }),
  ec2ProviderSchema,
]);

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
  name: dnsLabel,
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

const clusterSpecObject = z
  .strictObject({
    apiVersion: z.literal('kubemix/v1').default('kubemix/v1'),
    name: dnsLabel.describe('Cluster name; also the default cluster directory name.'),
    kubernetes: z
      .strictObject({
        version: versionString.optional().describe('Default: the pinned version in playbooks/versions.yaml.'),
      })
      .prefault({}),
    network: z
      .strictObject({
        podCIDR: cidr.default(DEFAULT_POD_CIDR),
        serviceCIDR: cidr.default(DEFAULT_SERVICE_CIDR),
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

/** The hypervisor a libvirt spec without hypervisors uses: the machine running kubemix. */
export const LOCAL_HYPERVISOR: Readonly<Hypervisor> = Object.freeze({
  name: 'hypervisor-01',
  address: 'localhost',
});

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
export type WorkerGroup = z.output<typeof workerGroupSchema>;
export type Hypervisor = z.output<typeof hypervisorSchema>;
export type ImageSource = z.output<typeof imageSourceSchema>;
