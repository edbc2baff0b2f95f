/**
 * A publisher's digest file beside a release asset, as `sha256sum`, `sha512sum` and `shasum -a N`
 * write it: `<hex>  <name>`, where the name may carry the path the publisher ran the tool with
 * (windows-container-networking's Makefile hashes `./release/<zip>`). Only the first field is the
 * digest; the name is not compared, since a publisher may rename an asset after hashing it.
 */
import type { DigestAlgorithm } from '../manifests/windows-release-assets.js';

const HEX_LENGTH: Record<DigestAlgorithm, number> = { sha256: 64, sha512: 128 };

/** The digest a digest file gives (lowercase hex), or undefined when its first field is not one of `algorithm`. */
export function digestFileValue(text: string, algorithm: DigestAlgorithm): string | undefined {
  const first = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return new RegExp(`^[0-9a-f]{${HEX_LENGTH[algorithm]}}$`).test(first) ? first : undefined;
}
