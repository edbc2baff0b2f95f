// Type-checked, never run, by test/provider/typed-steps/typed-steps.test.ts: a provider plan builds
// its module steps through typed builders, so every line marked `wrong: <argument>` must fail to
// compile, naming that argument, and every other line must compile. (Only libvirt's builders: the
// EC2 modules' types reach the AWS SDK's 1,700 declaration files, which would make this unit test
// slow; their builders are the same stepBuilder over Ec2Args.)
import { libvirtGuestsStep } from '../../../src/provider/libvirt/modules/guests.js';
import { libvirtImagesStep } from '../../../src/provider/libvirt/modules/images.js';
import { libvirtWindowsInstallStep } from '../../../src/provider/libvirt/modules/windows-install.js';

const common = { uri: 'qemu:///system', cluster: 'lab', dataDir: '/var/lib/kubemix', pool: 'kubemix' };
const image = {
  source: 'https://x/ws.iso',
  kind: 'url',
  algorithm: 'sha256',
  digest: 'ab',
  volume: 'ab.iso',
} as const;
const iso = { ...image, format: 'iso' } as const;
const install = { uri: common.uri, domain: 'lab-w1', disk: 'sda', address: '10.0.0.5' };

export const compiles = [
  libvirtGuestsStep({ ...common, accel: 'kvm', hypervisors: {} }, { name: 'guests' }),
  libvirtGuestsStep({ ...common, accel: '{{ outputs.libvirt_host.accel }}', hypervisors: {} }, { name: 'a' }),
  libvirtWindowsInstallStep({ ...install, port: 22, timeoutMinutes: 90 }, { name: 'install', os: 'windows' }),
  libvirtWindowsInstallStep({ ...install, port: '{{ libvirt_wait_port }}' }, { name: 'defaults left out' }),
  libvirtImagesStep(
    { ...common, hypervisors: { hv: [{ ...image, format: 'iso', onlyWithout: 'g' }] } },
    { name: 'i' },
  ),
];

export const fails = [
  libvirtGuestsStep({ ...common, accel: 'xen', hypervisors: {} }, { name: 'g' }), // wrong: accel
  libvirtGuestsStep({ ...common, accel: 'kvm', hypervisor: {} }, { name: 'g' }), // wrong: hypervisor
  libvirtGuestsStep({ ...common, accel: 'kvm' }, { name: 'g' }), // wrong: hypervisors
  libvirtGuestsStep({ ...install, dataDir: '/d', pool: 'p', accel: 'kvm', hypervisors: {} }, { name: 'g' }), // wrong: cluster
  libvirtGuestsStep({ ...common, accel: 'kvm', hypervisors: {} }, { register: 'g' }), // wrong: name
  libvirtGuestsStep({ ...common, accel: 'kvm', hypervisors: { hv: [{ domain: 1 }] } }, { name: 'g' }), // wrong: domain
  libvirtWindowsInstallStep({ ...install, port: '22' }, { name: 'i' }), // wrong: port
  libvirtWindowsInstallStep({ ...install, port: 22, setup: 'upgrade' }, { name: 'i' }), // wrong: setup
  libvirtImagesStep({ ...common, hypervisors: { hv: [{ ...image, format: 'raw' }] } }, { name: 'i' }), // wrong: format
  libvirtImagesStep({ ...common, hypervisors: { hv: [{ ...iso, onlyWith: 'g' }] } }, { name: 'i' }), // wrong: onlyWith
];
