import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Two files at a time even on two cores (vitest's default there is one): most of a test's time
    // is spent waiting on a virtual board's worker thread or a child process, and one at a time the
    // suite took 21.8 min against 14.3 min with two, both measured on this machine under load.
    maxWorkers: 2,
    // A few tests bound the board's recovery in time (session recovery, an unplug over sockets);
    // two files at once can push one past its bound on a busy machine. Such a test runs once more,
    // and vitest reports the retry; one that fails twice fails the suite.
    retry: 1,
  },
});
