import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { serveFiles } from '../../fixtures/libvirt/file-server.js';
import { leftovers, removeTestStorage, testImage, writeLibvirtSpec } from '../../fixtures/libvirt/lab.js';
import { ensureLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import type { RunEvent } from '../../src/types/events.js';
import { kubemixCli } from '../lab/kubemix-cli.js';
import { makeTempDir } from '../lab/temp-dir.js';

const loadAverage = async () => Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);

/**
 * CPU seconds (user + system) of each running QEMU whose command line names a domain of the
 * cluster (`guest=<cluster>.<node>`), by node: /proc/<pid>/stat fields 14 and 15, in clock ticks
 * (100 per second on Linux, as getconf CLK_TCK reports here).
 */
export async function guestCpuSeconds(cluster: string): Promise<Record<string, number>> {
  const cpu: Record<string, number> = {};
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const guest = new RegExp(`guest=${cluster}\\.([^,\\0]+)`).exec(cmdline)?.[1];
    if (!guest || !cmdline.startsWith('/usr/bin/qemu-system')) continue;
    const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    cpu[guest] = (Number(stat[11]) + Number(stat[12])) / 100;
  }
  return cpu;
}

const cli = kubemixCli();
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
  /** create-hosts alone: volumes, seed ISOs, domains defined, then started. */
  createHostsMs: number;
  /** CPU seconds each guest's QEMU used from its start until wait-for-hosts ended. */
  guestCpuSec: Record<string, number>;
  /** Load average (1 min) before and after: other work on the machine. */
  load: [number, number];
}

/** The event log of a cluster's last run. */
export async function events(clusterDir: string): Promise<RunEvent[]> {
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
export async function libvirtBootBench(): Promise<{
  one: BootRun;
  three: BootRun;
  ratio: number;
  /** The ratio the CPU alone forces: the three guests' CPU time spread over every core, against one guest's wait. */
  cpuFloor: number;
}> {
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
    const loadBefore = await loadAverage();
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
    const guestCpuSec = await guestCpuSeconds(name);
    const loadAfter = await loadAverage();
    if (up.exitCode !== 0) throw new Error(`kubemix up failed:\n${up.stdout.slice(-2000)}\n${up.stderr}`);
    const log = await events(clusterDir);
    const at = (e: RunEvent) => Date.parse(e.time);
    const createStart = log.find((e) => e.type === 'task-start' && e.task === 'create-hosts')!;
    const waitStart = log.find((e) => e.type === 'task-start' && e.task === 'wait-for-hosts')!;
    const waitEnd = log.find((e) => e.type === 'task-end' && e.task === 'wait-for-hosts')!;
    const createEnd = log.find((e) => e.type === 'task-end' && e.task === 'create-hosts')!;
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
      createHostsMs: at(createEnd) - at(createStart),
      guestCpuSec,
      load: [loadBefore, loadAfter],
    };
  };
  try {
    const one = await run('kmxbench1', '10.213.51.0/24', 0);
    await execa('node', [cli, 'down', made[0]!.spec, '--cluster-dir', made[0]!.clusterDir], {
      env: { CI: 'true' },
    });
    const three = await run('kmxbench3', '10.213.53.0/24', 2);
    const cores = (await readFile('/proc/cpuinfo', 'utf8')).match(/^processor\s*:/gm)?.length ?? 1;
    const threeCpuMs = Object.values(three.guestCpuSec).reduce((a, b) => a + b, 0) * 1000;
    return {
      one,
      three,
      ratio: three.createAndWaitMs / one.createAndWaitMs,
      cpuFloor: Math.max(1, threeCpuMs / cores / one.createAndWaitMs),
    };
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
