import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './setup/slowest-first.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Files that start the real libvirtd (qemu:///system) or the real QEMU driver and boot guests:
 * the slowest tier, and a machine-wide resource. Listed by name because what marks them is what
 * they import (fixtures/libvirt/libvirtd.ts, the golden-image helpers), not where they live.
 */
export const QEMU_FILES = [
  'test/cli/libvirt-bad-input.integration.test.ts',
  'test/e2e/libvirt-cluster.integration.test.ts',
  'test/e2e/libvirt-golden-resume.integration.test.ts',
  'test/e2e/libvirt-golden.integration.test.ts',
  'test/e2e/libvirt-remote.integration.test.ts',
  'test/e2e/libvirt-windows.integration.test.ts',
  'test/provider/libvirt/modules/golden-capture.integration.test.ts',
  'test/provider/libvirt/modules/golden-flow.integration.test.ts',
  'test/provider/libvirt/modules/golden-partials.integration.test.ts',
  'test/provider/libvirt/modules/golden-resume.integration.test.ts',
  'test/provider/libvirt/modules/images-golden.integration.test.ts',
  'test/provider/libvirt/modules/tunnel.integration.test.ts',
  'test/provider/libvirt-faults.integration.test.ts',
  'test/provider/libvirt/windows/golden-image.integration.test.ts',
  'test/provider/libvirt/windows/windows-guest.integration.test.ts',
];

/**
 * How many integration, e2e and QEMU files run at once, on this 2-core machine. A process-tier file
 * often waits: on a Windows install that never finishes, a moto waiter, a lab reboot, a poll. With
 * two at a time, a CI run's last 14 of 22 minutes were 62-95 % busy, 81 % on average (sampled every
 * 5 s); with three, 80-100 %, 97 % on average (stop 31).
 */
const PROCESS_TIER_WORKERS = 3;

/**
 * Real Kubernetes clusters on QEMU guests, from the release built here (scripts/release/): the
 * two-node Linux cluster, and the mixed one whose Windows workers are simulated. They run last,
 * one file at a time: an emulated controller needs both cores, and when a run's other files
 * shared them its API server fell behind its own probes and restarted in a loop (stop 36). Alone,
 * the Linux file takes about 19 minutes and the mixed one about 12.
 */
export const REAL_CLUSTER_FILES = [
  'test/e2e/libvirt-real-cluster.integration.test.ts',
  'test/e2e/libvirt-mixed-real-cluster.integration.test.ts',
];

/** Whole `up` / `ci` / `down` runs on a lab (or the EC2 emulator), not on QEMU guests. */
export const E2E_FILES = ['test/e2e/**/*.integration.test.ts', 'test/provider/ec2/cli.integration.test.ts'];

// Five tiers; every test file is in exactly one (test/project/tiers.test.ts checks it). `npm test`
// runs all five; `npm run test:unit` (and :integration, :e2e, :qemu, :real) one. test/README.md says
// which to run when. Every run ends with the leftover check (test/setup/global.ts): a test file
// that leaves a temp path, a process or a lab behind fails (test/setup/per-file.ts), and so does
// the run.
export default defineConfig({
  test: {
    root,
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/per-file.ts'],
    // The slowest files of the process tiers start first (test/setup/slowest-first.ts).
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          // No processes, no sockets, no sleeps: files run in parallel.
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.integration.test.ts'],
          testTimeout: 15_000,
          // The files share one module registry per worker (3x faster here): a helper that keeps
          // state per test file keys it by the file (test/lab/helpers.ts).
          isolate: false,
          // One worker per core (vitest's default leaves one core out); the unit tier runs before
          // the others, alone.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          // Lab hosts, protocol servers, child processes.
          name: 'integration',
          include: ['test/**/*.integration.test.ts'],
          exclude: [...E2E_FILES, ...QEMU_FILES, ...REAL_CLUSTER_FILES],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Several files at a time: each lab, server and temp directory is the file's own (labs
          // claim their own bridge and namespaces, servers listen on ports the kernel picks).
          maxWorkers: PROCESS_TIER_WORKERS,
          // The process tiers (integration, e2e, qemu) share one group and so its workers (vitest
          // runs groups in ascending order, the unit tier's first): a worker that a tier would
          // leave idle at its end takes the next tier's file, and the slowest files of all three
          // start first (test/setup/slowest-first.ts). An integration or e2e file may run beside
          // a QEMU file: every file's lab, cluster name, network and pool are its own.
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E_FILES,
          // Appended to the root's (extends): one lab cluster built for the whole run and shared
          // by the files that only read it (test/setup/shared-cluster-types.ts lists them).
          globalSetup: ['test/setup/shared-cluster.ts'],
          exclude: [...QEMU_FILES, ...REAL_CLUSTER_FILES],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // As integration files: each `up` runs on its file's own lab.
          maxWorkers: PROCESS_TIER_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'qemu',
          include: QEMU_FILES,
          // Appended to the root's (extends): one libvirtd for the whole tier, which its files share.
          globalSetup: ['test/setup/shared-libvirtd.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // With the integration and e2e files: each cluster has its own name, network and pool on
          // the shared libvirtd (fixtures/libvirt/test-cluster.ts).
          maxWorkers: PROCESS_TIER_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'real',
          include: REAL_CLUSTER_FILES,
          // The qemu tier's libvirtd when that tier runs too (it is then already answering and
          // stays the qemu setup's to stop), its own when this tier runs alone.
          globalSetup: ['test/setup/shared-libvirtd.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A group of its own after the process tiers' (groupOrder 1): nothing else runs beside it.
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
