/**
 * Records what the Go module proxy says about every release tag the lab's release models cite
 * (release-tags.ts), for test/lab/windows-release-models.test.ts. scripts/setup.sh runs it:
 * `node dist/scripts/lab/record-release-tags.js`.
 */
import { RELEASE_MODELS } from '../../fixtures/lab/windows-release-models.js';
import { recordReleaseTag, releaseTagCacheDir } from './release-tags.js';

for (const model of RELEASE_MODELS) {
  if (!model.goModule) continue;
  const record = await recordReleaseTag(model.goModule, model.tag);
  const what = record.origin
    ? `${record.origin.ref} = ${record.origin.hash}`
    : `HTTP ${record.status}, no origin`;
  console.log(`release-tags: ${model.goModule}@${model.tag}: ${what}`);
}
console.log(`release-tags: recorded in ${releaseTagCacheDir()}`);
