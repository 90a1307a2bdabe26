import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppLogger, createRootLogger } from './logging';
import { AppModule } from './app.module';
import { errorMessage } from './common/error-message';
import { waitForDependencies } from './wait-for-dependencies';
import { loadConfigOrExit } from './config/config';
import { warnAboutDevelopmentDefaults } from './config/development-defaults';
import { runMigrations } from './database/data-source';
import { ensureDatabase } from './database/ensure-database';

/** The worker process: queue processors and the outbox relay, no HTTP. Same image, started as `npm run start:worker`. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  await waitForDependencies(config, createRootLogger(config).child({ context: 'Startup' }));
  await ensureDatabase(config.databaseUrl);
  if (config.autoMigrate) await runMigrations(config.databaseUrl);
  const app = await NestFactory.createApplicationContext(AppModule.register({ api: false, worker: true }), { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get(AppLogger));
  warnAboutDevelopmentDefaults(app.get(AppLogger), config);
  app.enableShutdownHooks();
  await app.init();
  app.get(AppLogger).log('Worker started');
}

main().catch((e) => {
  process.stderr.write(`Worker start-up failed: ${errorMessage(e)}\n`);
  process.exit(1);
});
