import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));

// Two projects: fast unit tests, and integration tests (real sshd lab hosts, protocol test
// servers, child processes). `npm test` runs both; `vitest run --project unit` runs only the fast ones.
export default defineConfig({
  test: {
    root,
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
