import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { versionsReport } from '../../src/cli/commands/versions.js';
import { matrixMarkdown } from '../../src/cli/version-matrix.js';
import { WINDOWS_VERSIONS } from '../../src/types/windows.js';
import { loadVersions } from '../../src/versions/versions.js';

// The table lives beside the pins it shows (playbooks/versions.yaml).
const README = new URL('../../playbooks/README.md', import.meta.url);

describe('playbooks/README.md versions table', () => {
  it('is the table `kubemix versions -o markdown` prints for the defaults', () => {
    const text = readFileSync(README, 'utf8');
    const block =
      /<!-- kubemix versions -o markdown: begin -->\n([\s\S]*?)\n<!-- kubemix versions -o markdown: end -->/.exec(
        text,
      );
    expect(block, 'playbooks/README.md has the versions block').not.toBeNull();
    const versions = loadVersions();
    const report = versionsReport(versions, versions['kubernetes']!, WINDOWS_VERSIONS);
    expect(block![1]).toBe(
      `Kubernetes ${report.kubernetes} (${report.support})\n\n${matrixMarkdown(report.components)}`,
    );
  });
});
