/**
 * Three tiers, run together by `npm test` and alone with `npx jest --selectProjects <name>`:
 * - unit: no database, no Redis, no network (collaborators stubbed);
 * - integration: the real PostgreSQL and Redis, real HTTP, one fresh database per run (test/support/global-setup);
 * - browser: Debian's Chromium driving the served pages, on the same kind of database.
 * @type {import('jest').Config}
 */
const common = {
  testEnvironment: 'node',
  rootDir: '.',
  // Nest 12 (and a few test tools) ship ES modules only: swc compiles them (and our TypeScript) to CommonJS for jest.
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@apidevtools|pdf-parse|jose|marked)/)'],
};
const withServices = {
  ...common,
  // Node's environment plus a quick exit once a worker's loop has drained (test/support/service-environment.js says why).
  testEnvironment: '<rootDir>/test/support/service-environment.js',
  // Project-level set-up runs only when the project has tests to run; it prepares one database for both projects.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  // Longest files first, from jest's cached durations or else a committed table (test/support/test-sequencer.js).
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  // A worker that has run many files holds gigabytes (apps' pools, the media stack, model weights freed late), and its
  // garbage collection then slows every later file: above this, jest starts the worker afresh between two files.
  workerIdleMemoryLimit: '1500MB',
  // How long jest waits for a worker to leave before it forces it and warns. Measured in full runs: both workers had
  // nothing but stdio open at jest's END message and left at once (test/support/service-environment.js), yet jest warned
  // once per run with its default 500 ms: its own loop, busy at the end of a run, ran that timer before it read the
  // workers' exit. A worker kept alive by a leaked handle still gets forced and reported, 3 s later.
  workerGracefulExitTimeout: 3000,
  // No forceExit: every tier closes what it opens (apps, Redis and BullMQ connections, pools, servers, timers), so jest
  // exits by itself, on failure too. A handle left open now shows as "a worker process has failed to exit gracefully".
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...withServices, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...withServices, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
  ],
};
