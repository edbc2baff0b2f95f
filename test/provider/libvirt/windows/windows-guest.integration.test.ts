import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { domainXml } from '../../../../src/provider/libvirt/domain-xml.js';
import { cachedImage } from '../../../../src/provider/libvirt/image.js';
import { isoScript } from '../../../../src/provider/libvirt/iso.js';
import {
  chooseHyperv,
  countRebootEvents,
  generateAdministratorPassword,
  installConfigFiles,
  parseAllocationBytes,
  parseDomState,
  stagedPath,
  supportedHypervFeatures,
  type WindowsGuest,
  windowsComputerName,
} from '../../../../src/provider/libvirt/windows/index.js';
import { windowsGuest } from '../../../../src/provider/libvirt/windows-guest.js';
import { testTempDirSync } from '../../../helpers/temp.js';

// Real tools only: genisoimage and isoinfo (Debian genisoimage) for the config ISO; libvirt's
// embedded QEMU driver (`qemu:///embed?root=DIR`, libvirt >= 6.1) runs the real QEMU driver
// inside virsh with its own state directory, so this test neither needs nor touches a libvirtd.

const work = testTempDirSync('windows-guest');

const guest: WindowsGuest = {
  nodeName: 'windows-workers-01',
  computerName: windowsComputerName('windows-workers-01'),
  version: '2022',
  image: { index: 3 },
  administratorPassword: generateAdministratorPassword(),
  devices: 'emulated',
  sshAuthorizedKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB0wWq kubemix',
};
const configIso = join(work, 'pool', 'kmx-it.windows-workers-01.config.iso');

function stageAndBuild(): void {
  const staging = join(work, 'staging');
  mkdirSync(staging, { mode: 0o700 });
  for (const file of installConfigFiles(guest)) {
    const path = stagedPath(staging, file);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, file.content, { mode: 0o600 });
  }
  mkdirSync(dirname(configIso), { recursive: true });
  execFileSync(
    'sh',
    ['-c', isoScript({ source: staging, output: configIso, label: 'KUBEMIX', secret: true })],
    {
      stdio: 'pipe',
    },
  );
  expect(existsSync(staging)).toBe(false);
}

describe('config ISO (genisoimage)', () => {
  it('holds Autounattend.xml and the first-logon script under their Joliet names, 0600, staging removed', () => {
    stageAndBuild();
    expect(statSync(configIso).mode & 0o777).toBe(0o600);
    const listing = execFileSync('isoinfo', ['-J', '-f', '-i', configIso], { encoding: 'utf8' });
    expect(listing.split('\n').filter(Boolean).sort()).toEqual([
      '/Autounattend.xml',
      '/kubemix',
      '/kubemix/first-logon.ps1',
    ]);
    for (const file of installConfigFiles({ ...guest })) {
      const extracted = execFileSync('isoinfo', ['-J', '-i', configIso, '-x', `/${file.path}`], {
        encoding: 'utf8',
      });
      // Autounattend.xml carries this run's password: compare without printing it on failure.
      expect(extracted === file.content, file.path).toBe(true);
    }
    const label = execFileSync('isoinfo', ['-d', '-i', configIso], { encoding: 'utf8' });
    expect(label).toMatch(/^Volume id: KUBEMIX$/m);
  });
});

describe('Windows domain under TCG (real QEMU through the embedded libvirt driver)', () => {
  it('starts with the Hyper-V features this QEMU supports, and its resets are counted', {
    timeout: 900_000,
  }, () => {
    if (!existsSync(configIso)) stageAndBuild();
    // Short paths: QEMU's monitor socket lives under the root, and UNIX socket paths are capped at 108 bytes.
    const root = testTempDirSync('w');
    mkdirSync(join(root, 'etc'), { recursive: true });
    // No virtlogd here: QEMU's output goes to a file under the embed root. QEMU runs as root so
    // it can read this test's 0700 temporary directory.
    writeFileSync(join(root, 'etc', 'qemu.conf'), 'stdio_handler = "file"\nuser = "root"\ngroup = "root"\n');
    const uri = `qemu:///embed?root=${root}`;
    const disk = join(work, 'pool', 'disk.qcow2');
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', disk, '1G']);
    // A stand-in for the Windows ISO (not bootable): with nothing to boot, SeaBIOS resets the
    // machine after rebootTimeout, which libvirt reports as reboot events.
    const fakeInstallIso = join(work, 'pool', 'not-windows.iso');
    mkdirSync(join(work, 'empty'));
    execFileSync('genisoimage', ['-quiet', '-o', fakeInstallIso, '-V', 'NOTWIN', join(work, 'empty')]);

    const caps = execFileSync(
      'virsh',
      ['-c', uri, 'domcapabilities --virttype qemu --machine q35 --arch x86_64'],
      {
        encoding: 'utf8',
      },
    );
    const name = 'kmx-it.w1';
    // The guest as the provider defines it, its volumes as files here (no storage pool in the embed root).
    const definition = windowsGuest({
      cluster: 'kmx-it',
      node: 'w1',
      hypervisor: 'hypervisor-01',
      vcpus: 1,
      memoryMiB: 256,
      diskGiB: 1,
      ip: '10.213.90.11',
      mac: '52:54:00:00:00:01',
      network: 'unused',
      dnsDomain: 'kmx-it.kubemix.internal',
      dataDir: work,
      publicKey: 'ssh-ed25519 AAAA kubemix',
      connection: 'winrm',
      images: { windows: cachedImage({ source: fakeInstallIso, sha256: 'a'.repeat(64) }, 'iso') },
      windows: { version: '2022', computerName: 'w1' },
    });
    const files = [disk, fakeInstallIso, configIso];
    const xml = domainXml(definition, {
      accel: 'qemu',
      pool: 'unused',
      cluster: 'kmx-it',
      hyperv: chooseHyperv(supportedHypervFeatures(caps)),
    })
      // Test-only changes: the volumes as files; reset quickly when nothing boots; no network (none
      // exists in the embed root); no serial log file.
      .replace(/<disk type="volume"/g, '<disk type="file"')
      .replace(/<source pool="unused" volume="[^"]*"\/>/g, () => `<source file="${files.shift()}"/>`)
      .replace('<os>', "<os>\n    <bios rebootTimeout='500'/>")
      .replace(/<interface type="network">[\s\S]*?<\/interface>/, '')
      .replace(/<serial type="file">[\s\S]*?<\/serial>/, '');
    const file = join(work, 'domain.xml');
    writeFileSync(file, xml);
    let out = '';
    let errors = '';
    try {
      const run = spawnSync(
        'virsh',
        [
          '-c',
          uri,
          [
            `define ${file}`,
            `start ${name}`,
            // The first reset ends the wait (no --loop): one is what the test needs to see counted.
            `event --domain ${name} --event reboot --timeout 60 --timestamp`,
            `domstate --reason ${name}`,
            `domblkinfo ${name} sda`,
          ].join('; '),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      out = run.stdout;
      errors = run.stderr;
    } finally {
      execFileSync('virsh', ['-c', uri, `destroy ${name}; undefine ${name}`], { stdio: 'ignore' });
      // The embedded driver leaves the domain's (empty) cgroups behind: remove them, deepest first.
      execFileSync('sh', [
        '-c',
        'find /sys/fs/cgroup -maxdepth 3 -type d -name "qemu-embed-*-$1.*" | while read -r d; do find "$d" -depth -type d -exec rmdir {} + 2>/dev/null; done; true',
        'sh',
        name,
      ]);
    }
    const sections = out.split('\n\n');
    expect(out, errors).toContain(`Domain '${name}' started`);
    expect(countRebootEvents(out, name)).toBeGreaterThan(0);
    const state = sections.map((s) => parseDomState(s)).find((s) => s?.state === 'running');
    expect(state).toEqual({ state: 'running', reason: 'booted' });
    expect(parseAllocationBytes(out)).toBeGreaterThan(0);
    // The password never reaches libvirt: not in the domain XML, not in QEMU's command line.
    const qemuLog = readFileSync(join(root, 'log', 'qemu', `${name}.log`), 'utf8');
    expect(xml.includes(guest.administratorPassword) || qemuLog.includes(guest.administratorPassword)).toBe(
      false,
    );
  });
});
