import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/config/config';
import { HttpClient } from './http';
import { openApiResponseCheck } from './openapi-validator';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  baseUrl: string;
  http: HttpClient;
  db: DataSource;
  close(): Promise<void>;
}

/** Boots the real application (real PostgreSQL and Redis of this run) on a free port. */
export async function startApp(env: Record<string, string> = {}, logStream?: NodeJS.WritableStream): Promise<TestApp> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  let config: AppConfig;
  let app: INestApplication;
  try {
    config = loadConfig();
    app = await createApp(config, { worker: config.runWorker, logStream });
    try {
      await app.listen(0, '127.0.0.1');
    } catch (e) {
      // Closed here, as the caller gets no app to close: its pools, connections and timers would keep jest's worker alive.
      await app.close();
      throw e;
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    app,
    config,
    baseUrl,
    // Every response is checked against the served OpenAPI document, so the docs cannot drift from the behaviour.
    http: new HttpClient(baseUrl, undefined, openApiResponseCheck(baseUrl)),
    db: app.get(DataSource),
    close: () => app.close(),
  };
}
