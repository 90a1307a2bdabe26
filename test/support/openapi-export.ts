// Writes the OpenAPI document the app serves at /docs/openapi.json to a file, without connecting to PostgreSQL or Redis:
// `node -r ./scripts/swc-register.js test/support/openapi-export.ts out.json` (used by `npm run sdk:generate`).
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../src/app.module';
import { UNPREFIXED_ROUTES } from '../../src/app.factory';
import { loadConfig } from '../../src/config/config';
import { buildOpenApiDocument } from '../../src/swagger';

async function main(out: string): Promise<void> {
  // Placeholders only satisfy config validation: preview mode builds the route map and instantiates nothing.
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/unused';
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379/0';
  process.env.LOG_LEVEL ??= 'silent';
  const config = loadConfig();
  const app = await NestFactory.create(AppModule.register({ api: true, worker: false }), { preview: true, logger: false, abortOnError: false });
  app.setGlobalPrefix('api', { exclude: UNPREFIXED_ROUTES });
  const document = buildOpenApiDocument(app, config);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(document, null, 2) + '\n');
  await app.close();
}

main(process.argv[2] ?? 'dist/openapi.json').catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
