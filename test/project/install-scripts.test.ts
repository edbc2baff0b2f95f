import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// npm 11.16+ lists every dependency whose install script package.json's `allowScripts` does not
// decide, and npm 12 skips those scripts (npm docs, "npm-install-scripts"): each one is decided
// here, so a fresh clone's set-up prints no advisory and runs exactly the scripts we chose:
// tree-sitter-powershell's (node-gyp-build: its prebuilt binary, else a build) is needed by the
// PowerShell parser of the tests; ssh2's and cpu-features' only build optional native speed-ups
// (ssh2 falls back to its JavaScript crypto).
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};

const withInstallScripts = Object.entries(lock.packages)
  .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
  .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));

describe('install scripts of dependencies', () => {
  it('are each allowed or denied in package.json', () => {
    expect(withInstallScripts.length).toBeGreaterThan(0);
    const undecided = withInstallScripts.filter((name) => manifest.allowScripts?.[name] === undefined);
    expect(undecided).toEqual([]);
  });
});
