import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest test files, slowest first, as a fresh-clone `.ci/run` measured them (stop 30, file
 * durations in seconds: 388, 236, 222, 128, 121, 108, 98, 92, 89, 82). The process tiers share
 * their workers (test/vitest.config.ts); starting the longest files first keeps the run's end from
 * waiting on one long file while the other workers have nothing left (longest-processing-time-first
 * scheduling). A stale entry only orders the run worse; it never changes what runs or passes.
 */
export const SLOWEST_FILES = [
  'test/e2e/libvirt-cluster.integration.test.ts',
  'test/e2e/libvirt-remote.integration.test.ts',
  'test/e2e/libvirt-golden.integration.test.ts',
  'test/e2e/libvirt-windows.integration.test.ts',
  'test/provider/ec2/lifecycle.integration.test.ts',
  'test/e2e/mixed-versions.integration.test.ts',
  'test/e2e/mixed-cluster.integration.test.ts',
  'test/e2e/strict-lab.integration.test.ts',
  'test/e2e/ci.integration.test.ts',
  'test/e2e/ec2-cluster.integration.test.ts',
];

/** After the listed files, the tiers whose files run longest first. */
const PROJECTS_SLOWEST_FIRST = ['qemu', 'e2e', 'integration'];

/** The file's path from the repository root, as {@link SLOWEST_FILES} lists it. */
function repoPath(spec: TestSpecification): string {
  const root = spec.project.config.root.replace(/\/?$/, '/');
  return spec.moduleId.startsWith(root) ? spec.moduleId.slice(root.length) : spec.moduleId;
}

function rank(spec: TestSpecification): number {
  const listed = SLOWEST_FILES.indexOf(repoPath(spec));
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
    const sorted = await super.sort(files);
    const position = new Map(sorted.map((spec, index) => [spec, index]));
    return sorted.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        rank(a) - rank(b) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
  }
}
