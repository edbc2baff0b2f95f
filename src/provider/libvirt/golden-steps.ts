import { LOCALHOST } from '../../types/localhost.js';
import type { PlanStep } from '../../types/plan.js';
import type { LibvirtLayout } from './layout.js';
import type { LibvirtCommon } from './modules/common.js';
import { libvirtGoldenCaptureStep } from './modules/golden-capture.js';
import { libvirtGoldenMarkStep } from './modules/golden-marker.js';
import { libvirtGuestsStep } from './modules/guests.js';
import { libvirtRemoveConfigIsoStep } from './modules/remove-config-iso.js';
import { windowsFirstLogonStep } from './modules/windows-first-logon.js';
import { windowsGeneralizeStep } from './modules/windows-generalize.js';
import { libvirtWindowsInstallStep } from './modules/windows-install.js';
import { GUESTS_OUTPUT, guestsArgs } from './setup-steps.js';

/**
 * The golden image task, on each hypervisor with Windows guests. It first decides again whether
 * the golden volume is there (libvirt_guests, as create-hosts: a resumed run may find it made);
 * where it is not (`golden == 'capture'`), its first Windows guest, installed from the ISO, is watched until it
 * answers, its first logon awaited and its config ISO removed (as wait-for-hosts does), then it
 * is marked on the hypervisor (domain metadata) and generalized over its own connection, and the
 * hypervisor waits for sysprep's shut-off, captures the disk as the golden volume and removes the
 * installed guest. A resumed run that finds the mark (`golden == 'generalizing'`) only waits and
 * captures. Then, on every such hypervisor, the guests are made again: the first one and the
 * waiting ones as overlays.
 */
export function goldenSteps(
  layout: LibvirtLayout,
  common: LibvirtCommon,
  timeoutMinutes: number,
  /** The cluster's own known_hosts, on the machine running kubemix. */
  knownHosts: string,
): PlanStep[] {
  const capturing = { when: `outputs.${GUESTS_OUTPUT}.golden == 'capture'` };
  // A first guest marked before sysprep (a resumed run: `generalizing`) is only captured.
  const toCapture = { when: `outputs.${GUESTS_OUTPUT}.golden in ['capture', 'generalizing']` };
  // The playbook layer reads `when` before it connects (as Ansible does), and the delegate also
  // names the first guest only when capturing: otherwise it is a fresh overlay, or off after
  // sysprep, and a skipped step stays on the hypervisor (delegating to itself is no delegation).
  const onFirst = {
    ...capturing,
    delegateTo: `{{ golden_first.node if outputs.${GUESTS_OUTPUT}.golden == 'capture' else inventory_hostname }}`,
  };
  return [
    // Decided again here, not taken from create-hosts: a resumed run may find the volume made.
    libvirtGuestsStep(guestsArgs(layout, common, true), {
      name: 'look for the golden volume again (with it, the Windows guests are made as overlays now)',
      register: GUESTS_OUTPUT,
    }),
    libvirtWindowsInstallStep(
      {
        uri: common.uri,
        domain: '{{ golden_first.domain }}',
        disk: '{{ golden_first.disk_target }}',
        address: '{{ golden_first.address }}',
        port: '{{ golden_first.port }}',
        timeoutMinutes,
      },
      {
        name: 'Windows unattended install of the first Windows guest (watched from the hypervisor)',
        keywords: capturing,
      },
    ),
    windowsFirstLogonStep(
      { timeoutMinutes },
      { name: 'first-logon script of the first Windows guest finished', keywords: onFirst },
    ),
    libvirtRemoveConfigIsoStep(
      {
        uri: common.uri,
        pool: common.pool,
        domain: '{{ golden_first.domain }}',
        volume: '{{ golden_first.config_volume }}',
        target: '{{ golden_first.config_target }}',
      },
      {
        name: 'eject and delete its config ISO (it holds the Administrator password)',
        keywords: capturing,
      },
    ),
    // Before sysprep may start: a resumed run then neither starts, watches nor generalizes it again.
    libvirtGoldenMarkStep(
      { uri: common.uri, domain: '{{ golden_first.domain }}' },
      {
        name: 'mark it on the hypervisor as being generalized (a resumed run only captures it)',
        keywords: capturing,
      },
    ),
    windowsGeneralizeStep(
      {},
      { name: 'generalize it (sysprep /generalize /oobe /shutdown)', keywords: onFirst },
    ),
    {
      // The generalize script deleted the install's OpenSSH host keys; the overlay made at the
      // same address makes its own, which accept-new would refuse as a changed key. One
      // hypervisor at a time: they all edit the one file.
      name: "forget the installed guest's SSH host key in the cluster's known_hosts (its overlay makes its own)",
      module: 'lineinfile',
      args: { path: knownHosts, state: 'absent', regexp: '{{ golden_first.known_hosts_line }}' },
      throttle: 1,
      // Also on a resumed run (`generalizing`): it may have stopped before this step; removing is idempotent.
      keywords: { ...toCapture, delegateTo: LOCALHOST.name },
    },
    libvirtGoldenCaptureStep(
      {
        ...common,
        domain: '{{ golden_first.domain }}',
        node: '{{ golden_first.node }}',
        disk: '{{ golden_first.disk_volume }}',
        golden: '{{ golden_volume }}',
        timeoutMinutes,
      },
      {
        name: 'wait for its shut-off, capture its disk as the golden volume, remove the installed guest',
        keywords: toCapture,
      },
    ),
    libvirtGuestsStep(guestsArgs(layout, common, true), {
      name: 'create and start the Windows guests as overlays on the golden volume',
    }),
  ];
}

/**
 * Which path each Windows guest takes, for `plan`: known only at create-hosts, which looks for
 * the golden volume in the hypervisor's pool.
 */
export function goldenSummary(layout: LibvirtLayout): string {
  return [...layout.placed]
    .filter(([, entry]) => entry.golden)
    .map(([name, entry]) => {
      const golden = entry.golden!;
      const others = entry.guests
        .filter((g) => g.os === 'windows' && g.node !== golden.install.node)
        .map((g) => g.node);
      return `${name}: ${golden.install.node} installs from ISO, then generalized into ${golden.volume}, unless the volume exists (decided at create-hosts); ${others.length > 0 ? `${others.join(', ')} overlay` : 'no other Windows guest'} on ${golden.volume}`;
    })
    .join('; ');
}
