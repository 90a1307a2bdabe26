import { RequestMethod } from '@nestjs/common';
import corsMiddleware from 'cors';
import type { NextFunction, Request, Response } from 'express';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ADMIN_QUEUES_PATH, AdminQueuesBoard } from './admin-queues/admin-queues.board';
import { AppModule } from './app.module';
import { answerClientErrorsWithEnvelope } from './common/client-error';
import { DrainingExpressAdapter } from './common/draining-express-adapter';
import { requestLifecycle } from './common/request-lifecycle';
import { AllExceptionsFilter } from './common/http-exception.filter';
import { jsonBodyMiddleware } from './common/json-body.middleware';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/config';
import { warnAboutDevelopmentDefaults } from './config/development-defaults';
import { applyIdempotencyToWrites } from './idempotency/idempotent-writes';
import { HttpMetrics } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { CorsOrigins } from './partners/cors-origins';
import { RequestRecorder } from './request-log/request-recorder';
import { AppLogger, requestLogLine } from './logging';
import { setupSwagger } from './swagger';

/** Routes served outside the /api prefix: probes, documentation, pages and generated images. */
export const UNPREFIXED_ROUTES = [
  { path: 'health/live', method: RequestMethod.GET },
  { path: 'health/ready', method: RequestMethod.GET },
  { path: 'static/{*path}', method: RequestMethod.GET },
  { path: 'preview/{*path}', method: RequestMethod.GET },
  { path: 'live/{*path}', method: RequestMethod.ALL },
  { path: 'verify/{*path}', method: RequestMethod.GET },
  { path: '.well-known/jwks.json', method: RequestMethod.GET },
  { path: 'metrics', method: RequestMethod.GET },
  { path: 'dashboard', method: RequestMethod.ALL },
  { path: 'dashboard/{*path}', method: RequestMethod.ALL },
];

export interface CreateAppOptions {
  worker: boolean;
  logStream?: NodeJS.WritableStream;
}

/** Builds the HTTP application exactly as production runs it; tests and the benchmark use the same function. */
export async function createApp(config: AppConfig, options: CreateAppOptions = { worker: config.runWorker }): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register({ api: true, worker: options.worker, logStream: options.logStream }),
    new DrainingExpressAdapter(),
    {
      bodyParser: false,
      bufferLogs: true,
      // A failing start-up throws to the caller (main prints it and exits 1; a test sees its cause) instead of Nest
      // calling process.exit itself.
      abortOnError: false,
    },
  );
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  warnAboutDevelopmentDefaults(logger, config);
  // Before anything else: the request id (kept for every log line written on the request's behalf), the deadline
  // (a request is answered within REQUEST_TIMEOUT_MS even when PostgreSQL or Redis is stuck), its log line and metrics.
  app.use(requestLifecycle(config.requestTimeoutMs, [requestLogLine(logger.pino), app.get(HttpMetrics).observe, app.get(RequestRecorder).observe]));
  answerClientErrorsWithEnvelope(app.getHttpServer());
  app.disable('x-powered-by');
  // Served as https (TLS here or at the proxy): browsers must never fall back to plain HTTP for this origin.
  if (config.publicBaseUrl.startsWith('https:')) {
    app.use((_req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Strict-Transport-Security', 'max-age=31536000');
      next();
    });
  }
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.setGlobalPrefix('api', { exclude: UNPREFIXED_ROUTES });
  const errors = new AllExceptionsFilter(app.get(MetricsService));
  app.useGlobalFilters(errors);
  app.useGlobalPipes(createValidationPipe());
  // The success envelope is the adapter's (DrainingExpressAdapter.reply); Idempotency-Key is honoured on POST routes.
  applyIdempotencyToWrites(app);
  const origins = app.get(CorsOrigins);
  const corsHandler = corsMiddleware({
    origin: (origin, callback) => {
      if (!origin) return callback(null, false);
      origins.isAllowed(origin).then(
        (ok) => callback(null, ok),
        () => callback(null, false),
      );
    },
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['X-API-Key', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: [
      'X-Request-Id',
      'Location',
      'X-Quota-Limit',
      'X-Quota-Remaining',
      'X-Quota-Reset',
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
      'Idempotent-Replayed',
      'ETag',
    ],
    maxAge: 600,
  });
  // Server-to-server calls carry no Origin: they skip CORS entirely (the allowlist itself is checked by the guard).
  app.use((req: Request, res: Response, next: NextFunction) => (req.headers.origin ? corsHandler(req, res, next) : next()));
  // Bull Board for operators: Basic auth with an admin key as the password (see AdminBasicAuth).
  app.use(ADMIN_QUEUES_PATH, ...app.get(AdminQueuesBoard).handlers());
  // SIGTERM/SIGINT: DrainingExpressAdapter finishes requests in flight (bounded) before modules and pools close.
  app.enableShutdownHooks();
  setupSwagger(app, config);
  // Request bodies, for every route the application serves (after the board and the documentation, which read none).
  app.use(jsonBodyMiddleware(errors));
  return app;
}
