/**
 * The node test environment of the integration and browser tiers, plus two things.
 *
 * Each test file gets a database of its own, copied from the run's migrated template, and a Redis prefix of its own
 * (test/support/file-database.js): the outbox relay, the delivery and job sweeps and the queue workers a file starts
 * work on whole tables and queues, and would otherwise take, send or count another file's rows and jobs. The copy is
 * dropped when the file ends (KEEP_TEST_DB=true keeps it).
 *
 * A worker whose event loop has drained leaves at once. Measured: workers of these tiers hold 400–500 MB, and on a
 * loaded machine Node's full teardown after the 'exit' event (freeing the environment and the heap) took longer than
 * the 500 ms jest waits for a worker to leave, so jest reported "a worker process has failed to exit gracefully"
 * although the 'exit' event came 1 ms after jest asked and no handle was open. process.exit() inside an 'exit'
 * listener skips that teardown. A handle left open still keeps the loop alive, so no 'exit' event comes and jest
 * still reports it: leaks are not hidden.
 */
const { TestEnvironment } = require('jest-environment-node');
const { cloneTemplate, dropDatabase, fileNames } = require('./file-database');

// Loaded in each jest worker before the test files' modules are compiled (test/support/code-cache.js says why).
require('./code-cache').install();

if (!process.listeners('exit').some((l) => l.name === 'leaveWithoutTeardown')) {
  process.once('exit', function leaveWithoutTeardown(code) {
    process.exit(code);
  });
}

class ServiceEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    // Set by global-setup for the run: DATABASE_URL names the template there.
    if (!process.env.PA_TEST_RUN || !process.env.DATABASE_URL || !process.env.REDIS_PREFIX) return;
    this.names = fileNames(process.env.DATABASE_URL, process.env.REDIS_PREFIX, this.testPath);
    await cloneTemplate(process.env.DATABASE_URL, this.names.databaseUrl);
    // The test's own process.env (a copy jest gives each file): the apps, helpers and child processes it starts read it.
    this.global.process.env.DATABASE_URL = this.names.databaseUrl;
    this.global.process.env.REDIS_PREFIX = this.names.redisPrefix;
    // For files that need a database of another catalogue beside their own: a copy of the template costs a second,
    // migrating a new one and importing its word vectors far more.
    this.global.process.env.PA_TEST_TEMPLATE_URL = process.env.DATABASE_URL;
  }

  async teardown() {
    try {
      if (this.names && process.env.KEEP_TEST_DB !== 'true') await dropDatabase(this.names.databaseUrl);
    } finally {
      await super.teardown();
    }
  }
}

module.exports = ServiceEnvironment;
