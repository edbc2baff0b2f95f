import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files of the process tiers that ran 15 s or longer in a fresh-clone `.ci/run` (stop 34,
 * three files at a time), slowest first: 527, 260, 180, 142, 107, 101, 96, 96, 91, 83 s and so on
 * (libvirt-golden and libvirt-windows as measured alone after their controller stopped booting
 * Linux: 178 and 91 s). The process tiers share their workers (test/vitest.config.ts); starting
 * the longest files first keeps the run's end from waiting on one long file while the other
 * workers have nothing left (longest-processing-time-first scheduling). A stale entry only orders
 * the run worse; it never changes what runs or passes.
 */
export const SLOWEST_FILES = [
  'test/e2e/libvirt-cluster.integration.test.ts',
  'test/e2e/libvirt-remote.integration.test.ts',
  'test/e2e/libvirt-golden.integration.test.ts',
  'test/provider/ec2/lifecycle.integration.test.ts',
  'test/e2e/strict-lab.integration.test.ts',
  'test/e2e/mixed-versions.integration.test.ts',
  'test/e2e/ec2-cluster.integration.test.ts',
  'test/e2e/ci.integration.test.ts',
  'test/e2e/libvirt-windows.integration.test.ts',
  'test/e2e/mixed-cluster.integration.test.ts',
  'test/provider/ec2/resume.integration.test.ts',
  'test/e2e/cluster-lifecycle.integration.test.ts',
  'test/e2e/injection.integration.test.ts',
  'test/provider/ec2/cli.integration.test.ts',
  'test/e2e/rebuild-same-hosts.integration.test.ts',
  'test/e2e/linux-cluster.integration.test.ts',
  'test/release/release-artifacts.integration.test.ts',
  'test/e2e/linux-verify.integration.test.ts',
  'test/cli/verbosity.integration.test.ts',
  'test/e2e/control-plane-network.integration.test.ts',
  'test/e2e/offline-cluster.integration.test.ts',
  'test/playbooks-cluster/verify.integration.test.ts',
  'test/provider/libvirt-faults.integration.test.ts',
  'test/cli/cli.integration.test.ts',
  'test/playbooks-cluster/prepare-linux-containerd.integration.test.ts',
  'test/playbooks-cluster/linux-cluster.integration.test.ts',
  'test/cli/readme-commands.integration.test.ts',
  'test/e2e/mixed-ssh-cluster.integration.test.ts',
  'test/e2e/libvirt-golden-resume.integration.test.ts',
  'test/provider/libvirt/modules/golden-resume.integration.test.ts',
  'test/provider/libvirt/modules/golden-capture.integration.test.ts',
  'test/e2e/windows-network.integration.test.ts',
  'test/e2e/offline-sandbox-image.integration.test.ts',
  'test/e2e/windows-containerd.integration.test.ts',
  'test/playbook/injection-run.integration.test.ts',
  'test/playbooks-cluster/prepare-windows.integration.test.ts',
  'test/provider/libvirt/modules/golden-flow.integration.test.ts',
  'test/provider/ec2/identity.integration.test.ts',
  'test/provider/ec2/consistency.integration.test.ts',
  'test/lab/standins.integration.test.ts',
];

/** After the listed files, the tiers whose files run longest first. */
const PROJECTS_SLOWEST_FIRST = ['qemu', 'e2e', 'integration'];

function rank(spec: TestSpecification): number {
  const listed = SLOWEST_FILES.indexOf(relative(spec.project.config.root, spec.moduleId));
  if (listed !== -1) return listed;
  const project = PROJECTS_SLOWEST_FIRST.indexOf(spec.project.name);
  return SLOWEST_FILES.length + (project === -1 ? PROJECTS_SLOWEST_FIRST.length : project);
}

/**
 * vitest's order (groups in ascending `groupOrder`; in a group, failed then slower files first
 * when its results cache knows them, larger files first when it does not), with the files of one
 * group re-ordered by {@link rank}: the cache of a fresh clone is empty, and file size says little
 * about how long a file runs.
 */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array sort is stable: files of equal rank keep vitest's order.
    return (await super.sort(files)).sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}
