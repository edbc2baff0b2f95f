import type { PlanStep } from '../../types/plan.js';
import { cloudInitWaitStep } from '../cloud-init-wait.js';
import { libvirtRemoveConfigIsoStep } from './modules/remove-config-iso.js';
import { windowsFirstLogonStep } from './modules/windows-first-logon.js';
import { libvirtWindowsInstallStep } from './modules/windows-install.js';

/** Runs a step on the hypervisor the node's guest is placed on. */
const onHypervisor = { delegateTo: '{{ hypervisor }}' };

/**
 * wait-for-hosts on libvirt guests. Before connecting, a Windows guest's unattended install is
 * watched from its hypervisor (domain state, reboots, disk growth: `step-progress` lines; an
 * overlay on the golden image as specialize, not as an install from the ISO) until
 * the guest's connection port answers, for up to the spec's install time. After connecting:
 * Linux waits for cloud-init; Windows for its first-logon script's marker, and then the config
 * ISO holding the Administrator password is ejected and deleted (the guest never reads it again).
 */
export function libvirtWaitSteps(options: { uri: string; pool: string; windowsMinutes: number }): {
  beforeConnect: PlanStep[];
  afterConnect: PlanStep[];
} {
  return {
    beforeConnect: [
      libvirtWindowsInstallStep(
        {
          uri: options.uri,
          domain: '{{ libvirt_domain }}',
          disk: '{{ libvirt_system_disk }}',
          address: '{{ ansible_host }}',
          port: '{{ libvirt_wait_port }}',
          timeoutMinutes: options.windowsMinutes,
          setup: '{{ libvirt_windows_setup }}',
        },
        {
          name: 'Windows unattended install (watched from the hypervisor)',
          os: 'windows',
          keywords: onHypervisor,
        },
      ),
    ],
    afterConnect: [
      cloudInitWaitStep(),
      windowsFirstLogonStep(
        { timeoutMinutes: options.windowsMinutes },
        {
          name: 'Windows first-logon script finished (WinRM, firewall, network profile, OpenSSH)',
          os: 'windows',
        },
      ),
      libvirtRemoveConfigIsoStep(
        {
          uri: options.uri,
          pool: options.pool,
          domain: '{{ libvirt_domain }}',
          volume: '{{ libvirt_config_volume }}',
          target: '{{ libvirt_config_target }}',
        },
        {
          name: 'eject and delete the config ISO (it holds the Administrator password)',
          os: 'windows',
          keywords: onHypervisor,
        },
      ),
    ],
  };
}
