import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from './config/config';

export const API_KEY_SCHEME = 'api_key';

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Learning Platform Partner API')
    .setDescription(
      [
        'Embed courses, enrolments, certificates, credits, live webinars and course search in your product, and receive signed webhooks.',
        '',
        'Authenticate with the `X-API-Key` header (`eck_test_…` for test mode, `eck_live_…` for live mode). Register at `POST /api/partners/register` to get a test key instantly.',
        '',
        'Successful responses are `{ "status": "success", "data": … }`; errors are `{ "status": "error", "error": { "code", "message", "details?", "request_id" } }`. Certificate verification alone has no envelope.',
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .addServer(config.publicBaseUrl)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Your partner API key.' }, API_KEY_SCHEME)
    .addSecurityRequirements(API_KEY_SCHEME);
  const document = SwaggerModule.createDocument(app, builder.build(), { operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}` });
  // Routes marked @Public() need no key: their operations carry an empty security list.
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item) as Array<Record<string, unknown>>) {
      if (op && typeof op === 'object' && op['x-public']) {
        op.security = [];
        delete op['x-public'];
      }
    }
  }
  return document;
}

export function setupSwagger(app: INestApplication, config: AppConfig): void {
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    useGlobalPrefix: false,
    customSiteTitle: 'Partner API docs',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true, tryItOutEnabled: false },
  });
}
