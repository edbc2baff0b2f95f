import { windowsReleaseProblems } from '../manifests/windows-flannel-downloads.js';
import { loadVersions } from '../versions/versions.js';
import type { CrossFieldRule } from './rule-helpers.js';
import type { RuleIssue } from './spec-view.js';

/**
 * A cluster with Windows workers installs Windows flannel's files from the releases its versions
 * select (src/manifests/windows-release-assets.ts). A release kubemix has no reliable description
 * of (e.g. windows-container-networking 0.3.1, renamed by hand after its release) is refused here,
 * at the versions entry, before any machine exists. Entries the spec does not write are the pins
 * of playbooks/versions.yaml, checked all the same (a spec may move `flannel`, which flanneld.exe
 * follows).
 */
export const windowsReleaseRule: CrossFieldRule = (spec) => {
  if (!spec.workers.some((g) => g.os === 'windows' && (g.count ?? 0) > 0)) return [];
  const versions = { ...loadVersions(), ...spec.versions };
  return windowsReleaseProblems(versions).map(
    (problem): RuleIssue => ({
      path: ['versions', problem.entry],
      message: `${problem.message}${problem.entry in spec.versions ? '' : ' (the pin of playbooks/versions.yaml)'}`,
    }),
  );
};
