import 'reflect-metadata';
import { AppLogger, createRootLogger } from './logging';
import { createApp } from './app.factory';
import { errorMessage } from './common/error-message';
import { waitForDependencies } from './wait-for-dependencies';
import { loadConfigOrExit } from './config/config';
import { CatalogueLoader } from './courses/catalogue/catalogue-loader.service';
import { runMigrations } from './database/data-source';
import { ensureDatabase } from './database/ensure-database';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  await waitForDependencies(config, createRootLogger(config).child({ context: 'Startup' }));
  await ensureDatabase(config.databaseUrl);
  if (config.autoMigrate) await runMigrations(config.databaseUrl);
  const app = await createApp(config);
  if (config.loadDemoCatalogue) {
    const loaded = await app.get(CatalogueLoader).loadIfEmpty();
    if (loaded) app.get(AppLogger).log(loaded, 'Demo catalogue loaded');
  }
  await app.listen(config.port, config.host);
  app.get(AppLogger).log(`Partner API listening on ${config.publicBaseUrl} (docs at ${config.publicBaseUrl}/docs)`);
}

main().catch((e) => {
  process.stderr.write(`Start-up failed: ${errorMessage(e)}\n`);
  process.exit(1);
});
