import type { PlanStep } from '../../types/plan.js';

/** Runs a step on the hypervisor the node's guest is placed on. */
const onHypervisor = { delegateTo: '{{ hypervisor }}' };

/**
 * wait-for-hosts on libvirt guests. Before connecting, a Windows guest's unattended install is
 * watched from its hypervisor (domain state, reboots, disk growth: `step-progress` lines) until
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
      {
        name: 'Windows unattended install (watched from the hypervisor)',
        module: 'libvirt_windows_install',
        os: 'windows',
        args: {
          uri: options.uri,
          domain: '{{ libvirt_domain }}',
          disk: '{{ libvirt_system_disk }}',
          address: '{{ ansible_host }}',
          port: '{{ libvirt_wait_port }}',
          timeoutMinutes: options.windowsMinutes,
        },
        keywords: onHypervisor,
      },
    ],
    afterConnect: [
      {
        name: 'cloud-init finished (it restarts sshd: retried)',
        module: 'command',
        args: { cmd: 'cloud-init status --wait' },
        os: 'linux',
        retries: 8,
        delayMs: 2000,
        register: 'cloud_init_status',
        keywords: {
          changedWhen: false,
          // 2: done with recoverable errors (cloud-init 23.4+), e.g. deprecated keys.
          failedWhen: 'cloud_init_status.rc != 0 and cloud_init_status.rc != 2',
        },
      },
      {
        name: 'Windows first-logon script finished (WinRM, firewall, network profile, OpenSSH)',
        module: 'windows_first_logon',
        os: 'windows',
        args: { timeoutMinutes: options.windowsMinutes },
      },
      {
        name: 'eject and delete the config ISO (it holds the Administrator password)',
        module: 'libvirt_remove_config_iso',
        os: 'windows',
        args: {
          uri: options.uri,
          pool: options.pool,
          domain: '{{ libvirt_domain }}',
          volume: '{{ libvirt_config_volume }}',
          target: '{{ libvirt_config_target }}',
        },
        keywords: onHypervisor,
      },
    ],
  };
}
