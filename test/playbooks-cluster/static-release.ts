import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { testTempDir } from '../helpers/temp.js';

/** The files of containerd's static release that prepare-linux installs, made by the lab. */
export interface LabStaticRelease {
  /** File name (as artifacts.yaml names it) -> bytes. */
  files: Record<string, Buffer>;
  /** Upstream URL -> file name. */
  urls: Record<string, string>;
  /** The spec `versions:` entries that pin these files (versions and their SHA-256). */
  versions: Record<string, string>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A lab-made containerd static release: a real gzip tar with bin/containerd, bin/ctr and
 * bin/containerd-shim-runc-v2 (shell scripts; containerd answers `--version` the way a release
 * build prints it: cmd/containerd/command/main.go's VersionPrinter, name, package, version with
 * a `v`, revision), a runc.amd64 and a containerd.service whose ExecStart is
 * /usr/local/bin/containerd as upstream's is. `reports` is the version the binary claims (default:
 * the release version), to model a tarball that is not what its name says.
 */
export async function makeStaticRelease(options: {
  containerd: string;
  runc: string;
  reports?: string;
}): Promise<LabStaticRelease> {
  const root = await testTempDir('static-release');
  try {
    const bin = join(root, 'bin');
    await mkdir(bin);
    const script = async (name: string, body: string) => {
      await writeFile(join(bin, name), `#!/bin/sh\n${body}\n`);
      await chmod(join(bin, name), 0o755);
    };
    await script(
      'containerd',
      `echo "containerd github.com/containerd/containerd/v2 v${options.reports ?? options.containerd} 0000000000000000000000000000000000000000"`,
    );
    await script('ctr', 'echo "kubemix lab ctr"');
    await script('containerd-shim-runc-v2', 'exit 0');
    const tarball = `containerd-${options.containerd}-linux-amd64.tar.gz`;
    await execa('tar', ['-C', root, '-czf', join(root, tarball), 'bin']);
    const files: Record<string, Buffer> = {
      [tarball]: await readFile(join(root, tarball)),
      [`runc-${options.runc}.amd64`]: Buffer.from(`#!/bin/sh\necho "runc version ${options.runc}"\n`),
      [`containerd-${options.containerd}.service`]: Buffer.from(
        '[Unit]\nDescription=containerd container runtime (kubemix lab)\n\n[Service]\nExecStartPre=-/sbin/modprobe overlay\nExecStart=/usr/local/bin/containerd\nType=notify\n\n[Install]\nWantedBy=multi-user.target\n',
      ),
    };
    const [tar, runc, unit] = Object.keys(files) as [string, string, string];
    return {
      files,
      urls: {
        [`https://github.com/containerd/containerd/releases/download/v${options.containerd}/${tarball}`]: tar,
        [`https://github.com/opencontainers/runc/releases/download/v${options.runc}/runc.amd64`]: runc,
        [`https://raw.githubusercontent.com/containerd/containerd/v${options.containerd}/containerd.service`]:
          unit,
      },
      versions: {
        'containerd-linux': options.containerd,
        'containerd-linux-sha256': sha256(files[tar]!),
        'runc-linux': options.runc,
        'runc-linux-sha256': sha256(files[runc]!),
        'containerd-linux-service-sha256': sha256(files[unit]!),
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Puts a release's files where the lab's internet serves their URLs (`<dir>/<host>/<path>`). */
export async function publishStaticRelease(internetDir: string, release: LabStaticRelease): Promise<void> {
  for (const [url, file] of Object.entries(release.urls)) {
    const { hostname, pathname } = new URL(url);
    const path = join(internetDir, hostname, pathname);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, release.files[file]!);
  }
}
