import type { PlanStep } from '../types/plan.js';

/**
 * wait-for-hosts on a machine cloud-init sets up (libvirt guests, EC2 instances): after SSH
 * answers, wait for cloud-init to finish. It restarts sshd while it works, so the step retries.
 * Exit 2 is "done with recoverable errors" (cloud-init 23.4+, e.g. deprecated keys): finished.
 */
export function cloudInitWaitStep(): PlanStep {
  return {
    name: 'cloud-init finished (it restarts sshd: retried)',
    module: 'command',
    args: { cmd: 'cloud-init status --wait' },
    os: 'linux',
    retries: 8,
    delayMs: 2000,
    register: 'cloud_init_status',
    keywords: {
      changedWhen: false,
      failedWhen: 'cloud_init_status.rc != 0 and cloud_init_status.rc != 2',
    },
  };
}
