import { type RawArgs, requireString } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleAction, ModuleContext, ModuleRun } from '../../../modules/types.js';
import { shQuote } from '../../../quote/index.js';
import { cidrsOverlap, parseCidr } from '../../../spec/cidr.js';
import type { CommandResult } from '../../../types/command-result.js';
import { goldenVolumeTest } from '../windows/golden-cache.js';
import {
  forThisHypervisor,
  type LibvirtCommon,
  outputLines,
  parseCommon,
  poolPathAssignment,
  poolPathFrom,
  reason,
  recordedHere,
  virsh,
} from './common.js';
import { parseFacts, parseNetworkRanges, parseRoutes, parseVirshVersion } from './host-facts.js';
import { kvmProbeScript, kvmProblem } from './kvm-probe.js';

interface GuestNeeds {
  domain: string;
  os: string;
  vcpus: number;
  memoryMiB: number;
  diskGiB: number;
}

/** libvirt_preflight's arguments (the plan's and the module's one type). */
export interface PreflightArgs extends LibvirtCommon {
  /** The guest network's range (the same on every hypervisor). */
  cidr: string;
  /** What each hypervisor will hold, by hypervisor name. */
  hypervisors: Record<string, HypervisorPart>;
}

export interface HypervisorPart {
  network: { name: string; bridge: string };
  /** With several hypervisors: the VXLAN device this one will have. */
  tunnel?: { device: string; vni: number; port: number; peers: string[] };
  guests: GuestNeeds[];
  images: Array<{ kind: 'url' | 'path'; volume: string }>;
  /**
   * With `windows.goldenImage`: the golden volume of this hypervisor and the disk size of its
   * first Windows guest as installed (what is captured when the volume is missing).
   */
  golden?: { volume: string; installDiskGiB: number };
}

/** Whether the golden volume must be made here, as far as preflight can tell. */
type GoldenNeed = 'none' | 'exists' | 'capture';

interface Problem {
  message: string;
  /** The user's input is wrong (exit 2), not the hypervisor. */
  input: boolean;
}

const GIB_KIB = 1024 * 1024;

/** The shell tools a hypervisor needs, by what for. */
function toolsScript(part: HypervisorPart): string {
  const required = ['virsh', 'qemu-img', 'qemu-system-x86_64', 'sha256sum', 'sha512sum', 'timeout'];
  if (part.images.some((i) => i.kind === 'url')) required.push('curl');
  // The tunnel (iproute2's ip and bridge; getent resolves the other hypervisors' names).
  if (part.tunnel) required.push('ip', 'bridge', 'getent');
  // The Windows install wait asks bash's /dev/tcp whether the guest answers.
  if (part.guests.some((g) => g.os === 'windows')) required.push('bash');
  return [
    `for t in ${required.map((a) => shQuote(a)).join(' ')}; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done`,
    `command -v genisoimage >/dev/null 2>&1 || command -v mkisofs >/dev/null 2>&1 || command -v xorriso >/dev/null 2>&1 || echo ${shQuote('genisoimage (or mkisofs, xorriso)')}`,
  ].join('\n');
}

function factsScript(args: PreflightArgs): string {
  return [
    'echo "cpus $(nproc)"',
    `echo "memavail_kib $(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)"`,
    poolPathAssignment('d', args.uri, args.pool),
    `[ -n "$d" ] || d=${shQuote(`${args.dataDir}/pool`)}`,
    'while [ ! -d "$d" ]; do d=$(dirname "$d"); done',
    `echo "disk_free_kib $(df -Pk "$d" | awk 'NR==2 {print $4}')"`,
    'echo "disk_dir $d"',
  ].join('\n');
}

function inUseScript(args: PreflightArgs): string {
  return [
    `echo '# domains'; ${virsh(args.uri, 'list', '--all', '--name')}`,
    `echo '# networks'; ${virsh(args.uri, 'net-list', '--all', '--name')}`,
    `echo '# volumes'; if ${virsh(args.uri, 'pool-info', args.pool)} >/dev/null 2>&1; then ${virsh(args.uri, 'vol-list', '--pool', args.pool)} | awk '{print $1}'; fi`,
  ].join('\n');
}

/** VXLAN devices with their VNI and port, and whether the tunnel device's name is taken. */
function tunnelScript(tunnel: NonNullable<HypervisorPart['tunnel']>): string {
  return [
    `ip -d -o link show type vxlan 2>/dev/null | sed -n 's/^[0-9]*: \\([^:@]*\\).* vxlan id \\([0-9]*\\) .*dstport \\([0-9]*\\).*/vxlan \\1 \\2 \\3/p'`,
    `if ip -o link show dev ${shQuote(tunnel.device)} >/dev/null 2>&1; then echo taken; fi`,
  ].join('\n');
}

/**
 * Every libvirt network's XML. A network that is gone by the time it is dumped (another cluster's
 * `down` removed it after the listing) is in nobody's way and is left out; any other failure to
 * dump one fails the script.
 */
function networksScript(args: PreflightArgs): string {
  return [
    `${virsh(args.uri, 'net-list', '--all', '--name')} | while read -r n; do`,
    '  [ -n "$n" ] || continue',
    `  if ! xml=$(${virsh(args.uri, 'net-dumpxml')} "$n"); then`,
    `    if ${virsh(args.uri, 'net-info')} "$n" >/dev/null 2>&1; then exit 1; fi`,
    '    continue',
    '  fi',
    `  echo "== $n"; printf '%s\\n' "$xml"`,
    'done',
  ].join('\n');
}

/** Lines under `# section` headers. */
function sections(stdout: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current = '';
  for (const line of stdout.split('\n').map((l) => l.trim())) {
    if (line.startsWith('# ')) {
      current = line.slice(2);
      found.set(current, []);
    } else if (line !== '' && current) found.get(current)!.push(line);
  }
  return found;
}

/**
 * `libvirt_preflight`: checks one hypervisor before anything is created and reports every
 * problem at once: the tools, libvirt (and its version), KVM (or a warning that guests run under
 * TCG), free RAM / disk / CPUs against the guests placed there, the cluster's names and network
 * not already used there, and the images the guests need. With the golden image, the disk check
 * also counts making the golden volume where the pool has none yet. Changes nothing. Registers `accel`
 * (`kvm` or `qemu`, for the domain XML), `warning` and the versions.
 */
export const libvirtPreflightModule: Module<PreflightArgs> = {
  name: 'libvirt_preflight',
  os: 'linux',
  parseArgs(raw: RawArgs) {
    const common = parseCommon('libvirt_preflight', raw, ['cidr', 'hypervisors']);
    return {
      ...common,
      cidr: requireString('libvirt_preflight', raw, 'cidr'),
      hypervisors: raw['hypervisors'] as PreflightArgs['hypervisors'],
    };
  },
  *run(args, context): ModuleRun {
    const part = forThisHypervisor<HypervisorPart>('libvirt_preflight', args.hypervisors, context);
    if (!part)
      return {
        changed: false,
        failed: false,
        msg: 'no guests placed here',
        data: { accel: 'qemu', warning: '' },
      };
    const where = `${context.host.name} (${context.host.address})`;
    const problems: Problem[] = [];

    const tools = yield { kind: 'exec', command: toolsScript(part) };
    const missing = outputLines(tools);
    if (tools.failed) problems.push({ message: `cannot check the tools: ${reason(tools)}`, input: false });
    else if (missing.length > 0)
      problems.push({ message: `missing tools: ${missing.join(', ')}`, input: false });

    const version = yield { kind: 'exec', command: virsh(args.uri, 'version') };
    const versions = parseVirshVersion(version.stdout);
    const reachable = !version.failed;
    if (!reachable)
      problems.push({ message: `libvirt is not reachable at ${args.uri}: ${reason(version)}`, input: false });

    const kvm = yield { kind: 'exec', command: kvmProbeScript(), timeoutMs: 30_000 };
    const kvmWhyNot = kvm.failed ? `the KVM check failed: ${reason(kvm)}` : kvmProblem(kvm.stdout);
    const accel = kvmWhyNot === undefined ? 'kvm' : 'qemu';
    const warning =
      kvmWhyNot === undefined
        ? ''
        : `${where}: KVM cannot run guests (${kvmWhyNot}): they run under software emulation (TCG, libvirt domain type 'qemu'), several times slower`;

    const golden = part.golden && reachable ? yield* goldenNeed(args, part.golden.volume) : 'none';
    const facts = yield { kind: 'exec', command: factsScript(args) };
    problems.push(...resourceProblems(part, facts, golden));

    if (reachable) {
      const inUse = yield { kind: 'exec', command: inUseScript(args) };
      problems.push(...nameProblems(args, part, context, inUse));
      const networks = yield { kind: 'exec', command: networksScript(args) };
      const routes = yield { kind: 'exec', command: 'ip -4 -o route show' };
      problems.push(...networkProblems(args, part, context, networks, routes));
    }
    if (part.tunnel) {
      const vxlans = yield { kind: 'exec', command: tunnelScript(part.tunnel) };
      problems.push(...tunnelProblems(part.tunnel, context, vxlans));
    }

    const data = { accel, warning, ...versions };
    if (problems.length === 0)
      return {
        changed: false,
        failed: false,
        msg: `libvirt ${versions.libvirt ?? '?'}, ${accel === 'kvm' ? 'KVM' : 'TCG (no usable KVM)'}`,
        data,
      };
    return {
      changed: false,
      failed: true,
      inputError: problems.every((p) => p.input),
      msg: problems.map((p) => `${where}: ${p.message}`).join('\n'),
      data,
    };
  },
};

/**
 * Whether this hypervisor's pool has the golden volume (the test create-hosts makes); a pool not
 * made yet has none.
 */
function* goldenNeed(
  args: PreflightArgs,
  volume: string,
): Generator<ModuleAction, GoldenNeed, CommandResult> {
  const dumped = yield { kind: 'exec', command: virsh(args.uri, 'pool-dumpxml', args.pool) };
  const poolPath = poolPathFrom(dumped.stdout);
  if (!poolPath) return 'capture';
  const there = yield { kind: 'exec', command: goldenVolumeTest(poolPath, volume) };
  return there.failed ? 'capture' : 'exists';
}

/**
 * The disk the golden volume takes while it is made here: the first Windows guest's installed
 * disk and its capture, a `qemu-img convert` copy of that disk (golden-cache.ts) that holds only
 * the clusters the install wrote, so the installed disk's size is its upper bound. Both exist at
 * once until the capture removes the installed guest. With the volume there, only the overlays
 * on it count (the guests' own disks).
 */
function goldenDiskGiB(part: HypervisorPart, golden: GoldenNeed): number {
  return golden === 'capture' && part.golden ? 2 * part.golden.installDiskGiB : 0;
}

function resourceProblems(part: HypervisorPart, facts: CommandResult, golden: GoldenNeed): Problem[] {
  if (facts.failed) return [{ message: `cannot read CPUs, memory and disk: ${reason(facts)}`, input: false }];
  const values = parseFacts(facts.stdout);
  const problems: Problem[] = [];
  const cpus = Number(values.get('cpus'));
  const memoryMiB = Math.floor(Number(values.get('memavail_kib')) / 1024);
  const diskKiB = Number(values.get('disk_free_kib'));
  const needMiB = part.guests.reduce((sum, g) => sum + g.memoryMiB, 0);
  const guestsDiskGiB = part.guests.reduce((sum, g) => sum + g.diskGiB, 0);
  const captureGiB = goldenDiskGiB(part, golden);
  const needDiskGiB = guestsDiskGiB + captureGiB;
  const biggest = part.guests.reduce((max, g) => (g.vcpus > max.vcpus ? g : max), part.guests[0]!);
  if (Number.isFinite(memoryMiB) && needMiB > memoryMiB)
    problems.push({
      message: `not enough free memory: the ${part.guests.length} guest(s) placed here need ${needMiB} MiB, ${memoryMiB} MiB available`,
      input: false,
    });
  if (biggest && Number.isFinite(cpus) && biggest.vcpus > cpus)
    problems.push({
      message: `guest ${biggest.domain} wants ${biggest.vcpus} vCPUs, the hypervisor has ${cpus}`,
      input: false,
    });
  if (Number.isFinite(diskKiB) && needDiskGiB * GIB_KIB > diskKiB)
    problems.push({
      message: `not enough disk in ${values.get('disk_dir')}: the guests' disks may grow to ${needDiskGiB} GiB${captureGiB > 0 ? ` (${guestsDiskGiB} GiB, and ${captureGiB} GiB to make the golden volume ${part.golden!.volume}: the installed disk and its capture)` : ''}, ${(diskKiB / GIB_KIB).toFixed(1)} GiB free`,
      input: false,
    });
  return problems;
}

/** Names of the cluster that exist here although the state never recorded them: another cluster's. */
function nameProblems(
  args: PreflightArgs,
  part: HypervisorPart,
  context: ModuleContext,
  inUse: CommandResult,
): Problem[] {
  if (inUse.failed)
    return [{ message: `cannot list domains, networks and volumes: ${reason(inUse)}`, input: false }];
  const ours = new Set(recordedHere(context).map((r) => `${r.kind} ${r.name}`));
  const found = sections(inUse.stdout);
  const prefix = `${args.cluster}.`;
  const taken = [
    ...(found.get('domains') ?? []).filter((n) => n.startsWith(prefix)).map((n) => `domain ${n}`),
    ...(found.get('networks') ?? []).filter((n) => n === part.network.name).map((n) => `network ${n}`),
    ...(found.get('volumes') ?? []).filter((n) => n.startsWith(prefix)).map((n) => `volume ${n}`),
  ].filter((what) => !ours.has(what));
  if (taken.length === 0) return [];
  return [
    {
      message: `the cluster name "${args.cluster}" is already in use here (${taken.join(', ')}): choose another name (--name), or remove that cluster with kubemix down`,
      input: true,
    },
  ];
}

function networkProblems(
  args: PreflightArgs,
  part: HypervisorPart,
  context: ModuleContext,
  networks: CommandResult,
  routes: CommandResult,
): Problem[] {
  const problems: Problem[] = [];
  const mine = parseCidr(args.cidr)!;
  const ownNetwork = recordedHere(context, 'network').some((r) => r.name === part.network.name);
  const used = [
    ...(networks.failed ? [] : parseNetworkRanges(networks.stdout)).filter(
      (r) => !(ownNetwork && r.owner.startsWith(`libvirt network ${part.network.name} (`)),
    ),
    ...(routes.failed ? [] : parseRoutes(routes.stdout)).filter((r) => r.device !== part.network.bridge),
  ];
  if (networks.failed)
    problems.push({ message: `cannot list libvirt networks: ${reason(networks)}`, input: false });
  const reported = new Set<string>();
  for (const range of used) {
    const parsed = parseCidr(range.cidr);
    // A libvirt network and the route of its bridge are one range: reported once.
    const key = parsed ? `${parsed.network}/${parsed.prefix}` : range.cidr;
    if (reported.has(key)) continue;
    reported.add(key);
    if (parsed && cidrsOverlap(parsed, mine))
      problems.push({
        message: `the cluster network ${args.cidr} overlaps ${range.owner}: choose another one (--network CIDR, provider.network.cidr)`,
        input: true,
      });
  }
  return problems;
}

/** Another VXLAN device with the cluster's VNI and port, or the device name taken by something not the cluster's. */
function tunnelProblems(
  tunnel: NonNullable<HypervisorPart['tunnel']>,
  context: ModuleContext,
  vxlans: CommandResult,
): Problem[] {
  if (vxlans.failed) return [{ message: `cannot list VXLAN devices: ${reason(vxlans)}`, input: false }];
  const ours = recordedHere(context, 'tunnel').some((r) => r.name === tunnel.device);
  if (ours) return [];
  const problems: Problem[] = [];
  const lines = outputLines(vxlans);
  if (lines.includes('taken'))
    problems.push({
      message: `a network device named ${tunnel.device} exists already (not recorded as this cluster's): another cluster of this name? Choose another name (--name)`,
      input: true,
    });
  for (const line of lines.filter((l) => l.startsWith('vxlan '))) {
    const [, device, vni, port] = line.split(' ');
    if (device !== tunnel.device && Number(vni) === tunnel.vni && Number(port) === tunnel.port)
      problems.push({
        message: `VXLAN device ${device} already uses VNI ${vni} on UDP port ${port}: give the cluster another one (provider.tunnel.vni)`,
        input: true,
      });
  }
  return problems;
}

/** A libvirt_preflight plan step. */
export const libvirtPreflightStep = stepBuilder(libvirtPreflightModule);
