import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { loadConfig } from '../config/config';
import { CatalogueLoader } from '../courses/catalogue/catalogue-loader.service';
import { runMigrations } from '../database/data-source';
import { ensureDatabase } from '../database/ensure-database';
import { parseArgs, UsageError } from './args';
import type { CliCommand } from './cli-command';
import { CLI_COMMANDS } from './commands';

const USAGE = [
  'Usage: npm run --silent cli -- <command>',
  '  migrate',
  '  catalogue load [--file F]',
  ...Object.keys(CLI_COMMANDS).map((c) => `  ${c} …`),
].join('\n');

/** Runs one CLI command and prints one JSON object on stdout. Returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  process.env.LOG_LEVEL ??= 'silent';
  const args = parseArgs(argv);
  const config = loadConfig();
  const name = args.words.slice(0, 2).join(' ');
  try {
    if (args.words[0] === 'migrate') {
      await ensureDatabase(config.databaseUrl);
      const ran = await runMigrations(config.databaseUrl);
      print({ migrated: ran });
      return 0;
    }
    const command = name === 'catalogue load' ? catalogueLoad : CLI_COMMANDS[name];
    if (!command) throw new UsageError(`Unknown command "${args.words.join(' ')}"`);
    await ensureDatabase(config.databaseUrl);
    if (config.autoMigrate) await runMigrations(config.databaseUrl);
    const app = await NestFactory.createApplicationContext(AppModule.register({ api: false, worker: false }), { logger: false });
    try {
      print(await command(app, args));
    } finally {
      await app.close();
    }
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${JSON.stringify({ error: e.message })}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`${JSON.stringify({ error: e instanceof Error ? e.message : String(e), code: (e as { code?: string }).code })}\n`);
    return 1;
  }
}

const catalogueLoad: CliCommand = (app, args) => {
  const file = args.options.file;
  return app.get(CatalogueLoader).load(typeof file === 'string' ? file : undefined);
};

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
