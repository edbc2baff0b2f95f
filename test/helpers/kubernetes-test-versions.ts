import { OLDEST_SUPPORTED_MINOR } from '../../src/versions/kubernetes-support.js';
import { loadVersions } from '../../src/versions/versions.js';

/** The Kubernetes version a spec installs by default (playbooks/versions.yaml). */
export const DEFAULT_KUBERNETES = loadVersions()['kubernetes']!;

/**
 * The release of the oldest supported minor the tests build clusters and check manifests with:
 * 1.36.4, a 1.36 patch release the Go module proxy these machines reach serves (its OpenAPI spec
 * is what scripts/kubernetes-schemas.sh builds the schemas from). scripts/setup.sh builds its
 * schemas (OLDEST_TESTED_KUBERNETES there; test/lab/kubernetes-schemas.test.ts keeps both in step).
 */
export const OLDEST_TESTED_KUBERNETES = '1.36.4';

if (!OLDEST_TESTED_KUBERNETES.startsWith(`${OLDEST_SUPPORTED_MINOR}.`))
  throw new Error(
    `OLDEST_TESTED_KUBERNETES ${OLDEST_TESTED_KUBERNETES} is not a release of the oldest supported minor ${OLDEST_SUPPORTED_MINOR}: move it`,
  );
