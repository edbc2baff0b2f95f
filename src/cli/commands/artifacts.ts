import { resolve } from 'node:path';
import {
  ArtifactsCheckError,
  checkArtifacts,
  fetchArtifacts,
  IMAGES_FILE,
  LOCK_FILE,
  loadArtifactsFile,
  renderArtifacts,
} from '../../artifacts/index.js';
import { EXIT, UsageError } from '../../errors/index.js';
import { clusterFromFlags } from '../cluster-flags.js';
import { onePositional, parseCommandArgs, SHORT_FORM_HELP, SHORT_FORM_OPTIONS } from '../options.js';
import { out } from '../output.js';

export const artifactsHelp = `Usage: kubemix artifacts <spec> --dir DIR [options]

Download every file the cluster build of <spec> needs (playbooks/artifacts.yaml, at the spec's
versions) into DIR, with artifacts.lock.json (SHA-256 of each file) and images.txt (the container
images to export into DIR on a connected machine: kubemix cannot pull images). A spec with
\`artifacts: { dir: DIR }\` then builds the cluster from DIR without touching the internet.

Options:
  --dir DIR                  the artifacts directory (required)
  --url-base URL             download from a mirror: https://host/path is fetched from URL/host/path
  --check                    download nothing; verify DIR against the lock (exit 2 naming every
                             missing or wrong file)
${SHORT_FORM_HELP}`;

const short = (sha256: string | undefined) => (sha256 ? sha256.slice(0, 12) : '-');

/** `kubemix artifacts <spec> --dir DIR [--url-base URL] [--check]`. */
export async function artifactsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('artifacts', argv, {
    ...SHORT_FORM_OPTIONS,
    dir: { type: 'string' },
    'url-base': { type: 'string' },
    check: { type: 'boolean' },
  });
  if (values.help) {
    out(artifactsHelp);
    return EXIT.ok;
  }
  const spec = onePositional('artifacts', positionals, 'spec');
  if (!values.dir)
    throw new UsageError('kubemix artifacts: --dir DIR is required (see kubemix artifacts --help)');
  const urlBase = values['url-base'];
  if (urlBase !== undefined) {
    if (values.check) throw new UsageError('kubemix artifacts: --url-base and --check do not go together');
    if (!/^https?:\/\/[^/]+/.test(urlBase))
      throw new UsageError(`--url-base must be an http:// or https:// URL, got "${urlBase}"`);
  }
  const dir = resolve(values.dir);
  const context = await clusterFromFlags(spec, values);
  const list = renderArtifacts(loadArtifactsFile(), context.upPlan().vars);

  if (values.check) {
    const problems = await checkArtifacts({ list, dir });
    if (problems.length > 0) throw new ArtifactsCheckError(dir, problems);
    out(`${dir}: all ${list.length} artifacts of ${context.spec.name} present, digests match ${LOCK_FILE}`);
    return EXIT.ok;
  }

  const lock = await fetchArtifacts({
    list,
    dir,
    ...(urlBase !== undefined ? { urlBase } : {}),
    onEvent: (e) =>
      out(
        `${e.status.toUpperCase().padEnd(10)} ${e.artifact.name.padEnd(26)} ${e.artifact.file}  sha256 ${short(e.sha256)}${
          e.status === 'waiting' ? `  (export ${e.artifact.image})` : ''
        }`,
      ),
  });
  const waiting = lock.artifacts.filter((e) => e.sha256 === null);
  out(`Wrote ${dir}/${LOCK_FILE} and ${dir}/${IMAGES_FILE}.`);
  if (waiting.length > 0)
    out(
      `${waiting.length} image tarball${waiting.length === 1 ? '' : 's'} still to place in ${dir} (see ${IMAGES_FILE}), then run this command again to record ${waiting.length === 1 ? 'its digest' : 'their digests'}.`,
    );
  return EXIT.ok;
}
