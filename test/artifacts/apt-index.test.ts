import { describe, expect, it } from 'vitest';
import { choosePackage, parsePackagesIndex, releaseSha256 } from '../../src/artifacts/apt-index.js';

// The shapes of Debian's RepositoryFormat: a clear-signed InRelease with a SHA256 list, and a
// Packages index of deb822 paragraphs (fields as apt-ftparchive and OBS write them).
const IN_RELEASE = `-----BEGIN PGP SIGNED MESSAGE-----
Hash: SHA256

Origin: obs://build.opensuse.org/isv:kubernetes:core:stable:v1.37/deb
Label: deb
Architectures: amd64 arm64
Date: Tue, 27 Oct 2026 12:00:00 +0000
MD5Sum:
 0123456789abcdef0123456789abcdef 1234 Packages
SHA256:
 ${'a'.repeat(64)} 1234 Packages
 ${'B'.repeat(64)} 567 Packages.gz
-----BEGIN PGP SIGNATURE-----

iQEzBAEBCAAdFiEE
-----END PGP SIGNATURE-----
`;

const paragraph = (name: string, version: string, extra = '') =>
  `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Kubernetes Authors <dev@kubernetes.io>
${extra}Filename: amd64/${name}_${version}_amd64.deb
Size: 100
SHA256: ${'C'.repeat(64)}
Description: ${name}
 a second description line
`;

const INDEX = [
  paragraph('kubelet', '1.37.1-1.1', 'Depends: kubernetes-cni (>= 1.2.0)\n'),
  paragraph('kubelet', '1.37.2-1.1'),
  paragraph('kubelet', '1.37.2-2.1'),
  paragraph('kubelet', '1.37.10-1.1'),
  paragraph('kubernetes-cni', '1.9.1-1.1'),
  paragraph('kubernetes-cni', '1.10.0-1.1'),
  'Package: broken\nVersion: 1\n',
].join('\n');

describe("a flat repository's indices", () => {
  it('reads the SHA-256 of each index file from a clear-signed InRelease', () => {
    expect([...releaseSha256(IN_RELEASE)]).toEqual([
      ['Packages', { sha256: 'a'.repeat(64), size: 1234 }],
      ['Packages.gz', { sha256: 'b'.repeat(64), size: 567 }],
    ]);
  });

  it('reads every complete paragraph of a Packages index', () => {
    const index = parsePackagesIndex(INDEX);
    expect(index).toHaveLength(6);
    expect(index[0]).toEqual({
      package: 'kubelet',
      version: '1.37.1-1.1',
      filename: 'amd64/kubelet_1.37.1-1.1_amd64.deb',
      size: 100,
      sha256: 'c'.repeat(64),
    });
  });

  it("picks a release's newest revision, or a package's newest version, in Debian order", () => {
    const index = parsePackagesIndex(INDEX);
    expect(choosePackage(index, 'kubelet', '1.37.2')?.version).toBe('1.37.2-2.1');
    expect(choosePackage(index, 'kubelet', '1.37.1')?.version).toBe('1.37.1-1.1');
    expect(choosePackage(index, 'kubernetes-cni')?.version).toBe('1.10.0-1.1');
    expect(choosePackage(index, 'kubelet', '1.37.3')).toBeUndefined();
    expect(choosePackage(index, 'kubeadm')).toBeUndefined();
  });
});
