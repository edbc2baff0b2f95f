import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModuleAction } from '../../../../src/modules/types.js';
import type { GuestDefinition } from '../../../../src/provider/libvirt/guest.js';
import type { GuestInput } from '../../../../src/provider/libvirt/guest-os.js';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { libvirtGuestsModule } from '../../../../src/provider/libvirt/modules/guests.js';
import { macAddress } from '../../../../src/provider/libvirt/names.js';
import { goldenImage } from '../../../../src/provider/libvirt/windows/golden-cache.js';
import { windowsGoldenGuest } from '../../../../src/provider/libvirt/windows-golden-guest.js';
import { windowsGuest } from '../../../../src/provider/libvirt/windows-guest.js';
import { context, drive, result } from '../../../modules/drive.js';

// libvirt_guests turns guest definitions into commands; these drive it without a hypervisor
// (answers are what virsh prints) and look at what it would run and write for Windows guests.

const POOL_PATH = '/var/lib/kubemix/pool';
const PASSWORD = 'Kmx-test-password-1';
const caps = readFileSync(
  new URL('../../../../fixtures/libvirt/domcapabilities-qemu-tcg-q35.xml', import.meta.url),
  'utf8',
);
const windowsIso = cachedImage({ source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) }, 'iso');
const golden = goldenImage({
  windowsIso,
  version: '2022',
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
});

function input(node: string): GuestInput {
  return {
    cluster: 'lab',
    node,
    hypervisor: 'node1',
    vcpus: 2,
    memoryMiB: 4096,
    diskGiB: 40,
    ip: '10.0.0.14',
    mac: macAddress('lab', node),
    network: 'lab.node1.network',
    dnsDomain: 'lab.kubemix.internal',
    dataDir: '/var/lib/kubemix',
    publicKey: 'ssh-ed25519 AAAA kubemix',
    connection: 'winrm',
    images: { windows: windowsIso },
    windows: { version: '2022', computerName: 'win-1' },
  };
}

const args = (guest: GuestDefinition | GuestDefinition[], extra: Record<string, unknown> = {}) => {
  const guests = Array.isArray(guest) ? guest : [guest];
  return {
    uri: 'qemu:///system',
    cluster: 'lab',
    dataDir: '/var/lib/kubemix',
    pool: 'kubemix',
    accel: 'qemu',
    hypervisors: { node1: guests },
    passwords: Object.fromEntries(guests.map((g) => [g.node, PASSWORD])),
    ...extra,
  };
};

const poolXml = `<pool type="dir"><name>kubemix</name><target><path>${POOL_PATH}</path></target></pool>`;

/**
 * Answers every action with success, `answers` first for the commands they match (the first
 * matching entry per command); returns the actions taken.
 */
function run(
  guest: GuestDefinition | GuestDefinition[],
  answers: Array<[RegExp, ReturnType<typeof result>]> = [],
  extra: Record<string, unknown> = {},
) {
  const results = [];
  const actions: ModuleAction[] = [];
  const module = libvirtGuestsModule;
  const generator = module.run(module.parseArgs(args(guest, extra)), context());
  let next = generator.next();
  while (!next.done) {
    const action = next.value;
    actions.push(action);
    let answer = result();
    if (action.kind === 'exec') {
      if (action.command.includes("'pool-dumpxml'")) answer = result(poolXml);
      else if (action.command.includes("'domcapabilities'")) answer = result(caps);
      for (const [pattern, given] of answers) if (pattern.test(action.command)) answer = given;
    }
    results.push(answer);
    next = generator.next(answer);
  }
  return { actions, outcome: next.value };
}

const puts = (actions: ModuleAction[]) =>
  actions.filter((a): a is Extract<ModuleAction, { kind: 'put' }> => a.kind === 'put');
const execs = (actions: ModuleAction[]) =>
  actions
    .filter((a): a is Extract<ModuleAction, { kind: 'exec' }> => a.kind === 'exec')
    .map((a) => a.command);

describe('libvirt_guests: a Windows guest on the golden image', () => {
  const guest = windowsGoldenGuest(input('win-1'), golden);

  it('creates its disk as a qcow2 overlay backed by the golden volume of the pool', () => {
    const { actions, outcome } = run(guest);
    expect(outcome).toMatchObject({ failed: false, changed: true });
    const volumeXml = puts(actions).find((p) => p.remotePath.endsWith('/lab.win-1.disk.qcow2.xml'));
    expect(volumeXml?.content).toContain(`<path>${POOL_PATH}/${golden.volume}</path>`);
    expect(volumeXml?.content).toContain('<format type="qcow2"/>');
    const commands = execs(actions);
    const checked = commands.findIndex((c) => c === `test -f '${POOL_PATH}/${golden.volume}'`);
    const created = commands.findIndex((c) => c.includes("'vol-create' 'kubemix'"));
    expect(checked).toBeGreaterThan(-1);
    expect(created).toBeGreaterThan(checked);
    // No Windows Setup volume is made for it.
    expect(commands.some((c) => c.includes("'vol-create-as'"))).toBe(false);
  });

  it('writes the specialize answer file (computer name, password, no windowsPE pass) 0600 on its config ISO', () => {
    const { actions } = run(guest);
    const answer = puts(actions).find((p) => p.remotePath.endsWith('/win-1.config/Autounattend.xml'));
    const content = String(answer?.content);
    expect(answer?.mode).toBe(0o600);
    expect(content).toContain('<settings pass="specialize">');
    expect(content).toContain('<ComputerName>win-1</ComputerName>');
    expect(content).toContain(PASSWORD);
    expect(content).not.toContain('<settings pass="windowsPE">');
  });

  it('stops, naming the golden volume, when it is not in the pool; nothing is created', () => {
    const { actions, outcome } = run(guest, [[/^test -f /, result('', { exitCode: 1 })]]);
    expect(outcome).toMatchObject({ failed: true });
    expect(outcome.msg).toContain(`golden Windows volume ${golden.volume} is not in the pool`);
    expect(execs(actions).some((c) => c.includes("'vol-create'") || c.includes("'define'"))).toBe(false);
  });
});

describe('libvirt_guests: a Windows guest installed from the ISO', () => {
  it('still gets the install answer file (windowsPE pass) and a blank disk', () => {
    const { actions } = run(windowsGuest(input('win-1')));
    const answer = puts(actions).find((p) => p.remotePath.endsWith('/win-1.config/Autounattend.xml'));
    expect(String(answer?.content)).toContain('<settings pass="windowsPE">');
    expect(
      execs(actions).some((c) => c.includes("'vol-create-as' 'kubemix' 'lab.win-1.disk.qcow2' '40G'")),
    ).toBe(true);
  });
});

// drive() is the harness the other module tests use; one call checks the guests module consumes
// exactly its answers when the volume and domain exist already (a resumed run).
describe('libvirt_guests: a resumed run', () => {
  it('makes nothing for a golden overlay guest whose volumes and domain exist', () => {
    const guest = windowsGoldenGuest(input('win-1'), golden);
    const listed = [
      '# domains',
      guest.domain,
      '# running',
      guest.domain,
      '# volumes',
      ...guest.disks.map((d) => d.volume),
    ];
    const { execs: commands, outcome } = drive(libvirtGuestsModule, args(guest), [
      result(poolXml),
      result(listed.join('\n')),
      result(), // intent
      result(), // record
    ]);
    expect(outcome).toMatchObject({ failed: false, changed: false });
    expect(commands.some((c) => c.startsWith('test -f'))).toBe(false);
  });
});

describe('libvirt_guests: guests that exist already', () => {
  const guest = windowsGuest(input('win-1'));
  const listed = (state: 'running' | 'paused' | 'shut off'): [RegExp, ReturnType<typeof result>] => [
    /'list' '--all'/,
    result(
      [
        '# domains',
        guest.domain,
        '# running',
        ...(state === 'running' ? [guest.domain] : []),
        '# paused',
        ...(state === 'paused' ? [guest.domain] : []),
        '# volumes',
        ...guest.disks.map((d) => d.volume),
      ].join('\n'),
    ),
  ];
  /** The lifecycle commands run, as [verb, domain]. */
  const lifecycle = (actions: ModuleAction[]) =>
    execs(actions).flatMap((c) => {
      const m = /^virsh .* '(start|resume)' '([^']+)'$/.exec(c);
      return m ? [[m[1], m[2]]] : [];
    });

  // community.libvirt plugins/modules/virt.py core(), state == 'running'.
  it('a paused guest is resumed, as Ansible brings a domain to running; virsh start would refuse it', () => {
    const { actions, outcome } = run(guest, [listed('paused')]);
    expect(outcome).toMatchObject({ failed: false, changed: true });
    expect(lifecycle(actions)).toEqual([['resume', guest.domain]]);
  });

  it('a shut-off guest is started, a running one left alone', () => {
    expect(lifecycle(run(guest, [listed('shut off')]).actions)).toEqual([['start', guest.domain]]);
    expect(lifecycle(run(guest, [listed('running')]).actions)).toEqual([]);
  });

  it('a guest that cannot be resumed stops the task, naming the guest and what failed', () => {
    const refused = result('', { exitCode: 1, stderr: 'error: Failed to resume domain' });
    const { outcome } = run(guest, [listed('paused'), [/'resume'/, refused]]);
    expect(outcome).toMatchObject({
      failed: true,
      msg: `${guest.domain}: cannot resume: error: Failed to resume domain`,
    });
  });
});

describe('libvirt_guests with the golden image plan (create-hosts and the golden-image task)', () => {
  const overlays = ['win-1', 'win-2', 'win-3'].map((node) => windowsGoldenGuest(input(node), golden));
  const goldenArg = { golden: { node1: { volume: golden.volume, install: windowsGuest(input('win-1')) } } };
  const defined = (actions: ModuleAction[]) =>
    execs(actions)
      .filter((c) => c.includes("'start'"))
      .map((c) => /'start' '([^']+)'/.exec(c)?.[1]);
  const missing: [RegExp, ReturnType<typeof result>] = [
    new RegExp(`^test -f '${POOL_PATH}/${golden.volume}'$`),
    result('', { exitCode: 1 }),
  ];

  it('without the golden volume: installs the first Windows guest from the ISO, the others wait; registers capture', () => {
    const { actions, outcome } = run(overlays, [missing], goldenArg);
    expect(outcome).toMatchObject({ failed: false, data: { golden: 'capture', guests: ['lab.win-1'] } });
    expect(defined(actions)).toEqual(['lab.win-1']);
    expect(
      execs(actions).some((c) => c.includes("'vol-create-as' 'kubemix' 'lab.win-1.disk.qcow2' '40G'")),
    ).toBe(true);
    const answer = puts(actions).find((p) => p.remotePath.endsWith('/win-1.config/Autounattend.xml'));
    expect(String(answer?.content)).toContain('<settings pass="windowsPE">');
    // Only what is made is recorded as intended: down has nothing of the waiting guests to look for.
    const intent = actions.find((a) => a.kind === 'record') as Extract<ModuleAction, { kind: 'record' }>;
    expect(intent.update.resources?.map((r) => r.name).filter((n) => n.includes('win-2'))).toEqual([]);
  });

  // A resumed golden-image task: the first guest exists (installed), marked before sysprep.
  const installDomain = 'lab.win-1';
  const listedInstalled = (running: boolean): [RegExp, ReturnType<typeof result>] => [
    /^echo '# domains'/,
    result(
      ['# domains', installDomain, '# running', ...(running ? [installDomain] : []), '# volumes'].join('\n'),
    ),
  ];
  const metadata = /'metadata' 'lab\.win-1' 'https:\/\/kubemix\.dev\/libvirt\/golden\/1' '--config'$/;

  it('leaves a first guest marked as being generalized shut off and registers generalizing', () => {
    const { actions, outcome } = run(
      overlays,
      [missing, listedInstalled(false), [metadata, result('<golden state="generalizing"/>\n')]],
      goldenArg,
    );
    expect(outcome).toMatchObject({
      failed: false,
      changed: false,
      data: { golden: 'generalizing', guests: [] },
    });
    expect(defined(actions)).toEqual([]);
    // Nothing is made for it (its config ISO, deleted before sysprep, stays deleted), nothing recorded.
    expect(puts(actions)).toEqual([]);
    expect(execs(actions).some((c) => /'(define|vol-create|vol-create-as)'/.test(c))).toBe(false);
    const records = actions.filter(
      (a): a is Extract<ModuleAction, { kind: 'record' }> => a.kind === 'record',
    );
    expect(records.flatMap((r) => r.update.resources ?? [])).toEqual([]);
  });

  it('starts an unmarked shut-off first guest as before (libvirt: "metadata not found")', () => {
    const notFound = result('', {
      exitCode: 1,
      stderr: 'error: metadata not found: Requested metadata element is not present',
    });
    const { actions, outcome } = run(
      overlays,
      [missing, listedInstalled(false), [metadata, notFound]],
      goldenArg,
    );
    expect(outcome).toMatchObject({ failed: false, data: { golden: 'capture' } });
    expect(defined(actions)).toEqual(['lab.win-1']);
  });

  it('stops, starting nothing, when the mark cannot be read', () => {
    const broken = result('', { exitCode: 1, stderr: 'error: failed to connect to the hypervisor' });
    const { actions, outcome } = run(
      overlays,
      [missing, listedInstalled(false), [metadata, broken]],
      goldenArg,
    );
    expect(outcome).toMatchObject({ failed: true });
    expect(outcome.msg).toBe(
      'cannot read whether lab.win-1 is being generalized: error: failed to connect to the hypervisor',
    );
    expect(defined(actions)).toEqual([]);
  });

  it('reads no mark when the first guest is not made yet', () => {
    expect(execs(run(overlays, [missing], goldenArg).actions).some((c) => metadata.test(c))).toBe(false);
    expect(execs(run(overlays, [], goldenArg).actions).some((c) => metadata.test(c))).toBe(false);
  });

  // The golden volume exists and the first guest is there: an overlay made before (unmarked), or
  // the installed guest a capture published but could not remove (marked).
  const notFound = result('', {
    exitCode: 1,
    stderr: 'error: metadata not found: Requested metadata element is not present',
  });
  const listedAll: [RegExp, ReturnType<typeof result>] = [
    /^echo '# domains'/,
    result(
      [
        '# domains',
        ...overlays.map((g) => g.domain),
        '# running',
        ...overlays.map((g) => g.domain),
        '# volumes',
        ...overlays.flatMap((g) => g.disks.map((d) => d.volume)),
      ].join('\n'),
    ),
  ];
  const removals = (actions: ModuleAction[]) =>
    execs(actions).filter((c) => /'(undefine|vol-delete)'/.test(c));

  it('with the golden volume, keeps an unmarked first guest (an overlay already): nothing removed or made', () => {
    const { actions, outcome } = run(overlays, [listedAll, [metadata, notFound]], goldenArg);
    expect(outcome).toMatchObject({ failed: false, changed: false, data: { golden: 'exists' } });
    expect(execs(actions).some((c) => metadata.test(c))).toBe(true);
    expect(removals(actions)).toEqual([]);
    expect(defined(actions)).toEqual([]);
  });

  it('with the golden volume, removes a marked first guest (the install a capture left) and makes it again as an overlay', () => {
    const { actions, outcome } = run(
      overlays,
      [listedAll, [metadata, result('<golden state="generalizing"/>\n')]],
      goldenArg,
    );
    expect(outcome).toMatchObject({ failed: false, changed: true, data: { golden: 'exists' } });
    const [removal] = removals(actions);
    expect(removal).toContain("'undefine' '--nvram' 'lab.win-1'");
    expect(removal).toContain("'vol-delete' '--pool' 'kubemix' 'lab.win-1.disk.qcow2'");
    // Only win-1 is made again, as an overlay on the golden volume; the others exist and run.
    const overlayXml = puts(actions).find((p) => p.remotePath.endsWith('/lab.win-1.disk.qcow2.xml'));
    expect(String(overlayXml?.content)).toContain(`<path>${POOL_PATH}/${golden.volume}</path>`);
    expect(execs(actions).filter((c) => c.includes("'define'")).length).toBe(1);
    expect(defined(actions)).toEqual(['lab.win-1']);
  });

  it('stops in one line, naming the guest, when that installed guest cannot be removed', () => {
    const { actions, outcome } = run(
      overlays,
      [
        listedAll,
        [metadata, result('<golden state="generalizing"/>\n')],
        [/'undefine'/, result('', { exitCode: 1, stderr: 'error: domain is locked' })],
      ],
      goldenArg,
    );
    expect(outcome).toMatchObject({ failed: true });
    expect(outcome.msg).toMatch(
      /^lab\.win-1: the golden volume exists but the installed guest it was captured from is still here, and it cannot be removed: /,
    );
    expect(defined(actions)).toEqual([]);
  });

  it('with the golden volume: every Windows guest is an overlay; registers exists', () => {
    const { actions, outcome } = run(overlays, [], goldenArg);
    expect(outcome).toMatchObject({ failed: false, data: { golden: 'exists' } });
    expect(defined(actions)).toEqual(['lab.win-1', 'lab.win-2', 'lab.win-3']);
    expect(execs(actions).some((c) => c.includes("'vol-create-as'"))).toBe(false);
  });

  it('without the golden volume nor the Windows ISO (prepare-provider saw the volume, since removed): stops in one line, makes nothing', () => {
    const isoMissing: [RegExp, ReturnType<typeof result>] = [
      new RegExp(`^test -s '${POOL_PATH}/${windowsIso.volume}'$`),
      result('', { exitCode: 1 }),
    ];
    const { actions, outcome } = run(overlays, [missing, isoMissing], goldenArg);
    expect(outcome).toMatchObject({ failed: true, changed: false });
    expect(outcome.msg).toBe(
      `lab.win-1: the golden Windows volume ${golden.volume} is not in the pool, and neither is ${windowsIso.volume} (${windowsIso.source}) to install it from: prepare-provider found the golden volume and fetched no Windows media, and the volume was removed since. Run \`kubemix up --from prepare-provider\` to fetch them and install`,
    );
    // Nothing recorded, written or defined.
    expect(actions.filter((a) => a.kind !== 'exec')).toEqual([]);
    expect(execs(actions).filter((c) => !c.startsWith('test ') && !c.includes("'pool-dumpxml'"))).toEqual([]);
  });

  it('without the golden volume, with the Windows ISO in the pool: looks for it before installing', () => {
    const { actions, outcome } = run(overlays, [missing], goldenArg);
    expect(outcome).toMatchObject({ failed: false, data: { golden: 'capture' } });
    const looked = execs(actions).indexOf(`test -s '${POOL_PATH}/${windowsIso.volume}'`);
    expect(looked).toBeGreaterThan(-1);
    expect(looked).toBeLessThan(execs(actions).findIndex((c) => c.includes("'define'")));
  });
});
