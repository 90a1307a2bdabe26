import { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CODES } from './common/errors';
import { ErrorEnvelopeDto, ETAG_HEADER } from './common/swagger';
import { AppConfig } from './config/config';
import { guideHandler, GUIDE_PATH, renderGuidePages, routeNotFound } from './openapi/guide-page';
import { finishDocument } from './openapi/post-process';

export const API_KEY_SCHEME = 'api_key';
export const WEBINAR_TOKEN_SCHEME = 'webinar_token';

/** Every tag the operations use, in the order the docs list them, each with what it groups. */
const TAGS: Array<[string, string]> = [
  ['Partners', 'Self-service registration, your profile, plan and usage, and the request for production (live) access.'],
  ['Courses', 'The shared course catalogue: list with filters and sorting, and course detail with topics and tutor.'],
  ['Users', 'Your learners (per mode), identified by our id or your `external_user_id`.'],
  ['Credits', 'Learner credit balances: top-ups (idempotent by `reference`), balance and the append-only ledger.'],
  ['Enrolment', 'Enrol learners in published courses (paid with credits) and record their progress topic by topic.'],
  [
    'Certificates',
    'Certificates issued on completion: issue, public verification (JSON), the PDF, and the signed Open Badges 3.0 credential with its public key set.',
  ],
  ['Webinars', 'Live webinar rooms: schedule, start, register, join, attendance and end.'],
  ['Search', 'Natural-language course search with filters understood from the words.'],
  ['Webhooks', 'Signed webhook subscriptions for the nine event types, their deliveries and redelivery.'],
  ['Admin', 'Platform operators only (admin keys): partners, keys, production access, courses and certificate revocation.'],
  ['Pages', 'Generated pages and images (no envelope, no key): course previews, thumbnails, avatars and the certificate verification page.'],
  ['Health', 'Liveness and readiness probes for orchestrators (no key).'],
  ['Metrics', 'Prometheus metrics for operators.'],
];

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Learning Platform Partner API')
    .setDescription(
      [
        'Embed courses, enrolments, certificates, credits, live webinars and course search in your product, and receive signed webhooks.',
        '',
        `**Start with the [partner's guide](${GUIDE_PATH})**: keys and modes, plans and quotas, every error code, pagination, idempotency, webhooks and how to verify their signatures. This document is also available as [JSON](/docs/openapi.json) and [YAML](/docs/openapi.yaml); the nine webhook events are in its \`webhooks\` section.`,
        '',
        'Authenticate with the `X-API-Key` header (`eck_test_…` for test mode, `eck_live_…` for live mode). Register at `POST /api/partners/register` to get a test key instantly.',
        '',
        'Successful responses are `{ "status": "success", "data": … }`; errors are `{ "status": "error", "error": { "code", "message", "details?", "request_id" } }`. Certificate verification alone has no envelope.',
      ].join('\n'),
    )
    .setVersion('1.0.0')
    // The API is not open source: the licence is the partner agreement, published with these docs.
    .setLicense('Proprietary (partner agreement)', `${config.publicBaseUrl}/docs`)
    .addServer(config.publicBaseUrl, 'This instance (PUBLIC_BASE_URL)')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Your partner API key.' }, API_KEY_SCHEME)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'A webinar token for WHIP/WHEP: the host token (`t` of `host_join_url`) publishes, an attendee’s personal token (`a` of their `join_url`) plays.',
      },
      WEBINAR_TOKEN_SCHEME,
    )
    .addSecurityRequirements(API_KEY_SCHEME);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  document.components = { ...document.components, responses: { ...document.components?.responses, [INTERNAL_ERROR]: internalErrorResponse() } };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const op of Object.values(item) as Array<MarkedOperation | null>) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      // Routes marked @Public() need no key: their operations carry an empty security list.
      if (op['x-public']) {
        op.security = [];
        delete op['x-public'];
      }
      // WHIP/WHEP: a webinar token instead of the API key (playing a public webinar needs none).
      if (op['x-webinar-token']) {
        op.security = [{ [WEBINAR_TOKEN_SCHEME]: [] }];
        delete op['x-webinar-token'];
      }
      // Conditional GETs (ApiConditional): their 200 and 304 carry the ETag header.
      if (op['x-conditional']) {
        for (const status of ['200', '304']) {
          const response = op.responses[status];
          if (response) response.headers = { ...response.headers, ETag: ETAG_HEADER };
        }
        delete op['x-conditional'];
      }
      // Any /api route can fail unexpectedly: the same 500 envelope everywhere, so partners handle it once.
      if (path.startsWith('/api/')) op.responses['500'] ??= { $ref: `#/components/responses/${INTERNAL_ERROR}` };
    }
  }
  // Served as is by SwaggerModule, whose OpenAPIObject type describes 3.0 only; the finished document is 3.1.
  return finishDocument(document) as unknown as OpenAPIObject;
}

/** An operation as built by @nestjs/swagger, with the `x-` markers our decorators leave for this function. */
interface MarkedOperation {
  security?: unknown[];
  responses?: Record<string, { $ref?: string; headers?: Record<string, unknown> } | undefined>;
  'x-public'?: unknown;
  'x-webinar-token'?: unknown;
  'x-conditional'?: unknown;
}

const INTERNAL_ERROR = 'InternalError';

function internalErrorResponse(): ResponseObject {
  const [, message] = ERROR_CODES.internal_error;
  return {
    description: `\`internal_error\`: ${message} Quote the request_id when you contact support.`,
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
        example: { status: 'error', error: { code: 'internal_error', message, request_id: 'req_6f1c2b8e4d0a4f2a9b7c1d3e5f708192' } },
      },
    },
  };
}

/** Swagger UI's page: its scripts and styles come from /docs itself; inline styles and data: images are its own. */
const SWAGGER_UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Paths below /docs that are served: the page, what it loads, the document, and the guide. */
const DOCS_FILES = new Set([
  '/',
  '/index.html',
  '/swagger-ui-init.js',
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/favicon-32x32.png',
  '/favicon-16x16.png',
  '/openapi.json',
  '/openapi.yaml',
  GUIDE_PATH.slice('/docs'.length),
]);

export function setupSwagger(app: INestApplication, config: AppConfig): void {
  const document = buildOpenApiDocument(app, config);
  // The docs page holds a key once Authorize is used: no other site may frame it (clickjacking), and it runs only its
  // own scripts. Only what Swagger UI loads is served: swagger-ui-dist's folder also holds its package.json, source maps
  // and licence files.
  app.use('/docs', (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', SWAGGER_UI_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    if (!DOCS_FILES.has(req.path) && !req.path.startsWith(`${GUIDE_PATH.slice('/docs'.length)}/`)) return routeNotFound(req, res);
    next();
  });
  // The partner's guide (docs/partner-guide.md) and the other docs/*.md pages, rendered once.
  const pages = renderGuidePages();
  const http = app.getHttpAdapter();
  http.get(GUIDE_PATH, guideHandler(pages));
  http.get(`${GUIDE_PATH}/:name`, guideHandler(pages));
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    useGlobalPrefix: false,
    customSiteTitle: 'Partner API docs',
    // The key lives in the page's memory only: persisted, it would sit in localStorage for any script on the origin.
    swaggerOptions: { persistAuthorization: false, displayRequestDuration: true, tryItOutEnabled: false },
  });
}
