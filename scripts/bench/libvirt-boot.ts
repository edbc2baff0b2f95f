import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { serveFiles } from '../../fixtures/libvirt/file-server.js';
import { leftovers, removeTestStorage, testImage, writeLibvirtSpec } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import type { RunEvent } from '../../src/types/events.js';
import { makeTempDir } from '../lab/temp-dir.js';

const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const storage = { dataDir: '/var/lib/kubemix-bench', pool: 'kubemix-bench' };

/** One `kubemix up --stop-after wait-for-hosts` of a libvirt cluster, read back from its event log. */
export interface BootRun {
  guests: number;
  /** The whole command. */
  wallMs: number;
  /** create-hosts + wait-for-hosts: from the first `virsh start` to every guest answering SSH with cloud-init done. */
  createAndWaitMs: number;
  /** Per guest: from the start of wait-for-hosts (guests already started) to SSH answering. */
  bootToSshMs: Record<string, number>;
  /** Bytes the image server sent during the run (0 when the pool's cache was used). */
  downloadedBytes: number;
}

async function events(clusterDir: string): Promise<RunEvent[]> {
  const dir = join(clusterDir, 'runs');
  const files = (await readdir(dir)).sort();
  const text = await readFile(join(dir, files.at(-1)!), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RunEvent);
}

/**
 * Boot times of libvirt guests (TCG on these machines): a 1-guest cluster, then a 3-guest cluster
 * created in parallel on the same hypervisor (target: <= 1.3x the 1-guest time), the second reusing
 * the base image the first cached (0 bytes downloaded). Cleans up what it made.
 */
export async function libvirtBootBench(): Promise<{ one: BootRun; three: BootRun; ratio: number }> {
  const libvirtd = await ensureLibvirtd();
  const image = await testImage();
  const server = await serveFiles({ '/debian-13-test.qcow2': image.path });
  const made: Array<{ name: string; cidr: string; spec: string; clusterDir: string }> = [];
  const run = async (name: string, cidr: string, workers: number): Promise<BootRun> => {
    const clusterDir = join(await makeTempDir('bench-libvirt'), 'cluster');
    const spec = await writeLibvirtSpec(join(clusterDir, '..', `${name}.yaml`), {
      name,
      cidr,
      image: { source: `${server.base}/debian-13-test.qcow2`, sha256: image.sha256 },
      linuxWorkers: workers,
      ...storage,
    });
    made.push({ name, cidr, spec, clusterDir });
    const before = server.bytesSent();
    const started = performance.now();
    const up = await execa(
      'node',
      [cli, 'up', spec, '--cluster-dir', clusterDir, '--stop-after', 'wait-for-hosts'],
      {
        reject: false,
        env: { CI: 'true' },
      },
    );
    const wallMs = performance.now() - started;
    if (up.exitCode !== 0) throw new Error(`kubemix up failed:\n${up.stdout.slice(-2000)}\n${up.stderr}`);
    const log = await events(clusterDir);
    const at = (e: RunEvent) => Date.parse(e.time);
    const createStart = log.find((e) => e.type === 'task-start' && e.task === 'create-hosts')!;
    const waitStart = log.find((e) => e.type === 'task-start' && e.task === 'wait-for-hosts')!;
    const waitEnd = log.find((e) => e.type === 'task-end' && e.task === 'wait-for-hosts')!;
    const bootToSshMs: Record<string, number> = {};
    for (const e of log)
      if (e.type === 'step-end' && e.task === 'wait-for-hosts' && e.step === 'wait for connection')
        bootToSshMs[e.host] = at(e) - at(waitStart);
    return {
      guests: 1 + workers,
      wallMs,
      createAndWaitMs: at(waitEnd) - at(createStart),
      bootToSshMs,
      downloadedBytes: server.bytesSent() - before,
    };
  };
  try {
    const one = await run('kmxbench1', '10.213.51.0/24', 0);
    await execa('node', [cli, 'down', made[0]!.spec, '--cluster-dir', made[0]!.clusterDir], {
      env: { CI: 'true' },
    });
    const three = await run('kmxbench3', '10.213.53.0/24', 2);
    return { one, three, ratio: three.createAndWaitMs / one.createAndWaitMs };
  } finally {
    for (const c of made)
      if ((await leftovers({ ...c, ...storage })).length > 0)
        await execa('node', [cli, 'down', c.spec, '--cluster-dir', c.clusterDir], {
          reject: false,
          env: { CI: 'true' },
        });
    for (const c of made) await rm(join(c.clusterDir, '..'), { recursive: true, force: true });
    await removeTestStorage(storage);
    await server.close();
    await libvirtd.stop();
  }
}
