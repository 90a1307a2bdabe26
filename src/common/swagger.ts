import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtension, ApiExtraModels, ApiHeader, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CODES, ErrorCode } from './errors';

export class ErrorDetailDto {
  @ApiProperty({ example: 'validation_failed', description: 'Stable, machine-readable error code (snake_case).' })
  code: string;

  @ApiProperty({ example: 'The request is invalid.' })
  message: string;

  @ApiPropertyOptional({
    description:
      'Code-specific detail: [{ field, message }] for validation_failed, an object such as { required, available } for others. A list holds at most 50 problems; when there are more, a last entry `{ field: "*", message: "N more problems not listed", omitted: N }` counts the rest.',
    oneOf: [{ type: 'array', items: { type: 'object' } }, { type: 'object' }],
    example: [{ field: 'limit', message: 'limit must not be greater than 100' }],
  })
  details?: unknown;

  @ApiProperty({ example: 'req_6f1c2b8e4d0a4f2a9b7c1d3e5f708192' })
  request_id: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ enum: ['error'], example: 'error' })
  status: 'error';

  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}

/** Documents a `{ status: "success", data: <model> }` response. */
export function ApiSuccess(
  model: Type<unknown>,
  options: {
    status?: number;
    description?: string;
    isArray?: boolean;
    headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  } = {},
) {
  const data = options.isArray ? { type: 'array', items: { $ref: getSchemaPath(model) } } : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: options.status ?? 200,
      description: options.description ?? 'Success',
      ...(options.headers ? { headers: options.headers } : {}),
      schema: {
        type: 'object',
        required: ['status', 'data'],
        properties: { status: { type: 'string', enum: ['success'], example: 'success' }, data },
      },
    }),
  );
}

/** Documents the error responses a route can give, grouped by status, each code with an example. */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code][0];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const decorators = [ApiExtraModels(ErrorEnvelopeDto, ErrorDetailDto)];
  for (const [status, list] of byStatus) {
    decorators.push(
      ApiResponse({
        status,
        description: list.map((c) => `\`${c}\`: ${ERROR_CODES[c][1]}`).join(' '),
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
            examples: Object.fromEntries(
              list.map((c) => [
                c,
                { value: { status: 'error', error: { code: c, message: ERROR_CODES[c][1], request_id: 'req_6f1c2b8e4d0a4f2a9b7c1d3e5f708192' } } },
              ]),
            ),
          },
        },
      }),
    );
  }
  return applyDecorators(...decorators);
}

/**
 * Errors any keyed route can give: key, plan, quota, origin and rate refusals, a dependency being down, and an admin
 * key's X-Partner-Id naming no partner.
 */
export const KEYED_ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'revoked_api_key',
  'account_suspended',
  'endpoint_not_in_plan',
  'monthly_quota_exceeded',
  'origin_not_allowed',
  'rate_limited',
  'service_unavailable',
  'partner_not_found',
];

/** The ETag header of a conditional GET's 200 and 304 (added by buildOpenApiDocument where `x-conditional` is set). */
export const ETAG_HEADER = {
  description: 'Strong validator of this body; send it back in If-None-Match to get 304 while it is current.',
  schema: { type: 'string', example: '"m3m5X1u5b3Rj3m8pD0Vq2l0WJ6Q"' },
};

/**
 * A GET answering conditionally: ETag on 200, and 304 (no body) when If-None-Match names the current ETag. A 304
 * is still authenticated, rate-limited and counted against the quota like any call.
 */
export function ApiConditional() {
  return applyDecorators(
    ApiExtension('x-conditional', true),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'An ETag from an earlier response of this URL: 304 with no body while it is current.',
      schema: { type: 'string' },
    }),
    ApiResponse({ status: 304, description: 'Not modified: If-None-Match names the current ETag. No body; counted like any call.' }),
  );
}
