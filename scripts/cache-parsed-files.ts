/**
 * Writes dist/parsed-files.json at `npm run build` (after tsc): the parsed cluster playbooks,
 * playbooks/artifacts.yaml and playbooks/versions.yaml, which commands then read instead of parsing the YAML at every start
 * (src/fs/parsed-files.ts says why and when an entry is used).
 */
import { loadArtifactsFile } from '../src/artifacts/index.js';
import { recordParsedFiles, writeParsedFiles } from '../src/fs/parsed-files.js';
import { loadClusterPlaybooks } from '../src/playbook/cluster-playbooks.js';
import { loadVersions } from '../src/versions/versions.js';

recordParsedFiles();
await loadClusterPlaybooks();
loadArtifactsFile();
loadVersions();
writeParsedFiles();
