import { describe, expect, it } from 'vitest';
import { editLines, lineinfileModule } from '../../../src/modules/files/lineinfile.js';
import { findModule } from '../../../src/modules/registry.js';
import { buildPlan, formatPlan } from '../../../src/plan/index.js';
import type { GuestDefinition } from '../../../src/provider/libvirt/guest.js';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { goldenImage } from '../../../src/provider/libvirt/windows/golden-cache.js';
import type { ClusterSpecInput } from '../../../src/spec/schema.js';
import { validateSpecInput } from '../../../src/spec/validate.js';
import { evaluateCondition, renderString, renderValue } from '../../../src/template/render.js';
import type { Plan } from '../../../src/types/plan.js';
import { loadVersions } from '../../../src/versions/versions.js';

// The plan of a libvirt spec with `windows.goldenImage`: which path each Windows guest takes,
// the golden-image task between create-hosts and wait-for-hosts, and what its steps are given.
// The spec goes through the same validation `kubemix up` applies.

const WINDOWS_ISO = { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) };
const golden = goldenImage({
  windowsIso: cachedImage(WINDOWS_ISO, 'iso'),
  version: '2022',
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
}).volume;

function plan(goldenImageOn: boolean, hypervisors = 1): Plan {
  const input: ClusterSpecInput = {
    name: 'lab',
    provider: {
      type: 'libvirt',
      images: { windows: WINDOWS_ISO },
      windows: { goldenImage: goldenImageOn },
      ...(hypervisors > 1
        ? {
            hypervisors: Array.from({ length: hypervisors }, (_, i) => ({
              name: `hv-${i + 1}`,
              address: `192.0.2.${10 + i}`,
            })),
          }
        : {}),
    },
    nodes: {
      controlPlane: { count: 1 },
      workers: [{ name: 'win', os: 'windows', count: 3, ...(hypervisors > 1 ? { connection: 'ssh' } : {}) }],
    },
  };
  const spec = validateSpecInput(input, { file: 'spec.yaml' });
  return buildPlan({ spec, versions: loadVersions(), clusterDir: '/clusters/lab' });
}

const task = (p: Plan, name: string) => p.tasks.find((t) => t.name === name)!;
const guestsOf = (p: Plan, hv: string) =>
  (
    task(p, 'create-hosts').steps.find((s) => s.module === 'libvirt_guests')!.args['hypervisors'] as Record<
      string,
      GuestDefinition[]
    >
  )[hv]!;

describe('plan with windows.goldenImage', () => {
  it('is accepted, and adds the golden-image task between create-hosts and wait-for-hosts', () => {
    const p = plan(true);
    expect(task(p, 'golden-image').needs).toEqual(['create-hosts']);
    expect(task(p, 'wait-for-hosts').needs).toEqual(['golden-image']);
    expect(task(p, 'golden-image').hosts).toEqual(['hypervisor-01']);
    expect(task(p, 'golden-image').steps.map((s) => s.module)).toEqual([
      'libvirt_guests',
      'libvirt_windows_install',
      'windows_first_logon',
      'libvirt_remove_config_iso',
      'libvirt_golden_mark',
      'windows_generalize',
      'lineinfile',
      'libvirt_golden_capture',
      'libvirt_guests',
    ]);
    // Each module accepts its arguments as rendered on the hypervisor (its variables, create-hosts' outputs).
    const hv = p.hosts.find((h) => h.name === 'hypervisor-01')!;
    const scope = {
      ...hv.vars,
      outputs: {
        libvirt_host: { accel: 'qemu' },
        libvirt_windows_passwords: {},
        libvirt_guests: { golden: 'capture' },
      },
    };
    for (const step of task(p, 'golden-image').steps) {
      const module = findModule(step.module);
      expect(module, step.module).toBeDefined();
      expect(() => module!.parseArgs(renderValue(step.args, scope)), step.module).not.toThrow();
      if (step.keywords?.['when']) expect(evaluateCondition(step.keywords['when'], scope)).toBe(true);
    }
  });

  it('plans every Windows guest as an overlay on the golden volume, and the first one also as installed', () => {
    const p = plan(true);
    const windows = guestsOf(p, 'hypervisor-01').filter((g) => g.os === 'windows');
    expect(windows.map((g) => g.disks[0]!.source)).toEqual(
      windows.map(() =>
        expect.objectContaining({
          kind: 'golden-overlay',
          golden: expect.objectContaining({ volume: golden }),
        }),
      ),
    );
    const args = task(p, 'create-hosts').steps.find((s) => s.module === 'libvirt_guests')!.args;
    const plan1 = (args['golden'] as Record<string, { volume: string; install: GuestDefinition }>)[
      'hypervisor-01'
    ]!;
    expect(plan1.volume).toBe(golden);
    expect(plan1.install.node).toBe(windows[0]!.node);
    expect(plan1.install.disks.map((d) => d.source.kind)).toEqual(['blank', 'cached', 'windows-config']);
    // The golden task re-runs create-hosts' libvirt_guests with the very same arguments.
    expect(task(p, 'golden-image').steps.at(-1)!.args).toEqual(args);
  });

  it('runs the capture steps only where create-hosts found no golden volume, on the first guest where it must', () => {
    const steps = task(plan(true), 'golden-image').steps;
    // The decision is made again first (registered over create-hosts' own), then the capture steps follow it.
    expect(steps[0]!.register).toBe('libvirt_guests');
    expect(steps[0]!.keywords?.['when']).toBeUndefined();
    // Forgetting the install's host key and the capture also run for a guest marked by an
    // interrupted run (`generalizing`); the steps on the guest itself only when capturing.
    const alsoResumed = new Set(['lineinfile', 'libvirt_golden_capture']);
    for (const step of steps.slice(1, -1))
      expect(step.keywords?.['when']).toBe(
        alsoResumed.has(step.module)
          ? "outputs.libvirt_guests.golden in ['capture', 'generalizing']"
          : "outputs.libvirt_guests.golden == 'capture'",
      );
    // Delegated to the first guest only when capturing: otherwise an overlay just made does not
    // answer yet, and a skipped step should not name it.
    const hv = plan(true).hosts.find((h) => h.name === 'hypervisor-01')!;
    for (const module of ['windows_first_logon', 'windows_generalize']) {
      const delegateTo = steps.find((s) => s.module === module)!.keywords?.['delegateTo'];
      const scope = (golden: string) => ({
        ...hv.vars,
        inventory_hostname: 'hypervisor-01',
        outputs: { libvirt_guests: { golden } },
      });
      expect(renderString(String(delegateTo), scope('capture'))).toBe('win-01');
      expect(renderString(String(delegateTo), scope('exists'))).toBe('hypervisor-01');
    }
    expect(steps.find((s) => s.module === 'libvirt_golden_capture')!.args).toMatchObject({
      domain: '{{ golden_first.domain }}',
      disk: '{{ golden_first.disk_volume }}',
      golden: '{{ golden_volume }}',
      timeoutMinutes: 45,
    });
  });

  it('on a resumed run whose first guest is marked as being generalized, runs only the capture, on the hypervisor', () => {
    const p = plan(true);
    const steps = task(p, 'golden-image').steps;
    const hv = p.hosts.find((h) => h.name === 'hypervisor-01')!;
    const scope = (golden: string) => ({
      ...hv.vars,
      inventory_hostname: 'hypervisor-01',
      outputs: { libvirt_guests: { golden } },
    });
    const runs = (golden: string) =>
      steps
        .filter(
          (s) => s.keywords?.['when'] === undefined || evaluateCondition(s.keywords['when'], scope(golden)),
        )
        .map((s) => s.module);
    // known_hosts too: the interrupted run may have stopped before it forgot the install's key.
    expect(runs('generalizing')).toEqual([
      'libvirt_guests',
      'lineinfile',
      'libvirt_golden_capture',
      'libvirt_guests',
    ]);
    expect(runs('capture')).toEqual(steps.map((s) => s.module));
    expect(runs('exists')).toEqual(['libvirt_guests', 'libvirt_guests']);
    // The skipped guest steps are not delegated to the first guest (it may be off or generalizing).
    for (const module of ['windows_first_logon', 'windows_generalize']) {
      const delegateTo = steps.find((s) => s.module === module)!.keywords?.['delegateTo'];
      expect(renderString(String(delegateTo), scope('generalizing'))).toBe('hypervisor-01');
    }
    // The mark is set on the hypervisor before the guest is generalized.
    const mark = steps.findIndex((s) => s.module === 'libvirt_golden_mark');
    expect(mark).toBe(steps.findIndex((s) => s.module === 'windows_generalize') - 1);
    expect(steps[mark]!.keywords?.['delegateTo']).toBeUndefined();
  });

  it("gives the hypervisor its first guest's install-time devices (the overlay's differ)", () => {
    const p = plan(true);
    const hv = p.hosts.find((h) => h.name === 'hypervisor-01')!;
    const first = guestsOf(p, 'hypervisor-01').find((g) => g.os === 'windows')!;
    expect(hv.vars?.['golden_volume']).toBe(golden);
    expect(hv.vars?.['golden_first']).toEqual({
      node: first.node,
      domain: first.domain,
      address: first.ip,
      port: p.hosts.find((h) => h.name === first.node)!.vars?.['libvirt_wait_port'],
      disk_volume: `lab.${first.node}.disk.qcow2`,
      disk_target: 'sda',
      config_volume: `lab.${first.node}.config.iso`,
      config_target: 'sdc',
      known_hosts_line: expect.any(String),
    });
    // wait-for-hosts ejects the overlay's config CD-ROM, which sits elsewhere.
    expect(p.hosts.find((h) => h.name === first.node)!.vars?.['libvirt_config_target']).toBe('sdb');
  });

  it('has wait-for-hosts watch each Windows guest as what it is: specialize for overlays, install without the golden image', () => {
    const setups = (p: Plan) => {
      const wait = task(p, 'wait-for-hosts').steps.find((s) => s.module === 'libvirt_windows_install')!;
      const module = findModule(wait.module)!;
      return p.hosts
        .filter((h) => h.os === 'windows')
        .map((h) => {
          // Rendered with the node's own variables, as the executor scopes a step's arguments.
          const scope = { ...h.vars, inventory_hostname: h.name, ansible_host: h.address };
          return (module.parseArgs(renderValue(wait.args, scope)) as { setup: string }).setup;
        });
    };
    expect(setups(plan(true))).toEqual(['specialize', 'specialize', 'specialize']);
    expect(setups(plan(false))).toEqual(['install', 'install', 'install']);
  });

  it("forgets the installed first guest's SSH host key, only its address's lines, in the cluster's known_hosts on the kubemix machine", () => {
    const p = plan(true, 2); // 2 hypervisors: Windows over SSH
    const hv = p.hosts.find((h) => h.name === 'hv-1')!;
    const first = hv.vars!['golden_first'] as { node: string; address: string };
    expect(p.hosts.find((h) => h.name === first.node)?.connection).toBe('ssh');
    const step = task(p, 'golden-image').steps.find((s) => s.module === 'lineinfile')!;
    expect(step.keywords).toMatchObject({
      delegateTo: 'localhost',
      when: "outputs.libvirt_guests.golden in ['capture', 'generalizing']",
    });
    expect(step.throttle).toBe(1);
    const args = lineinfileModule.parseArgs(renderValue(step.args, { ...hv.vars }));
    expect(args).toMatchObject({ path: '/clusters/lab/known_hosts', state: 'absent' });
    const [a, b, c, d] = first.address.split('.');
    const neighbour = `${a}.${b}.${c}.${Number(d) + 100}`;
    const knownHosts = [
      `${first.address} ssh-ed25519 AAAAinstall`,
      `[${first.address}]:22 ecdsa-sha2-nistp256 AAAAinstall2`,
      `other,${first.address} ssh-rsa AAAAinstall3`,
      `${neighbour} ssh-ed25519 AAAAneighbour`,
      `${first.address}0 ssh-ed25519 AAAAlonger`,
      `192.0.2.10 ssh-ed25519 AAAAhypervisor`,
      '',
    ].join('\n');
    expect(editLines(knownHosts, args).text.split('\n')).toEqual([
      `${neighbour} ssh-ed25519 AAAAneighbour`,
      `${first.address}0 ssh-ed25519 AAAAlonger`,
      `192.0.2.10 ssh-ed25519 AAAAhypervisor`,
      '',
    ]);
  });

  it('shows which path each Windows guest takes', () => {
    const text = formatPlan(plan(true));
    const lines = text.split('\n').filter((l) => /^ {2}win-\S+ +worker +windows Windows Server 2022/.test(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(
      `installs from ISO, then generalized into ${golden}; overlay on it from the start if the hypervisor has it (decided at create-hosts)`,
    );
    for (const line of lines.slice(1))
      expect(line).toMatch(new RegExp(`; overlay on ${golden.replace(/\./g, '\\.')}$`));
  });

  it('has one first guest per hypervisor', () => {
    const p = plan(true, 2);
    expect(task(p, 'golden-image').hosts).toEqual(['hv-1', 'hv-2']);
    const firsts = ['hv-1', 'hv-2'].map(
      (name) => (p.hosts.find((h) => h.name === name)!.vars!['golden_first'] as { node: string }).node,
    );
    expect(new Set(firsts).size).toBe(2);
    for (const [i, name] of ['hv-1', 'hv-2'].entries())
      expect(guestsOf(p, name).some((g) => g.node === firsts[i])).toBe(true);
  });

  it('without it: no golden-image task, Windows guests install from the ISO, nothing golden in the plan', () => {
    const p = plan(false);
    expect(p.tasks.some((t) => t.name === 'golden-image')).toBe(false);
    expect(task(p, 'wait-for-hosts').needs).toEqual(['create-hosts']);
    expect(
      guestsOf(p, 'hypervisor-01')
        .filter((g) => g.os === 'windows')
        .map((g) => g.disks[0]!.source.kind),
    ).toEqual(['blank', 'blank', 'blank']);
    expect(formatPlan(p)).not.toContain('golden');
  });
});
