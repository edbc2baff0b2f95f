import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));

// Two projects: fast unit tests, and integration tests (real sshd lab hosts, protocol test
// servers, child processes). `npm test` runs both; `vitest run --project unit` runs only the fast ones.
// Every run ends with the leftover check (test/setup/global.ts): a test file that leaves a temp
// path, a process or a lab behind fails (test/setup/per-file.ts), and so does the run.
export default defineConfig({
  test: {
    root,
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/per-file.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.integration.test.ts'],
          testTimeout: 15_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.integration.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Lab hosts and servers are shared machine resources: run integration files one at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
