import type { TestProject } from 'vitest/node';
import { ensureLibvirtd } from '../../fixtures/libvirt/libvirtd.js';
import { projectFilesInRun } from './files-in-run.js';

/**
 * The qemu tier's one libvirtd (vitest `globalSetup` of the qemu project): started once per run,
 * when a QEMU file is in it, and stopped after the last one. Why: the QEMU files run two at a
 * time, and a libvirtd that each file starts and stops would be stopped under the other file's
 * guests. A file's own `ensureLibvirtd()` then finds it answering and leaves it running. Each
 * file's cluster has its own name, network, pool and data directory
 * (fixtures/libvirt/test-cluster.ts), so two files on one libvirtd never meet.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if ((await projectFilesInRun(project)).length === 0) return undefined;
  const libvirtd = await ensureLibvirtd();
  return () => libvirtd.stop();
}
