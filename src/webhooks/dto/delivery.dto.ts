import { ApiProperty, OmitType } from '@nestjs/swagger';
import { IsIsoTimestamp } from '../../common/iso-timestamp';
import { PageQuery, PageMetaDto } from '../../common/pagination';

export class ListDeliveriesQuery extends PageQuery {}

export class DeliveryDto {
  @ApiProperty({ example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA', description: 'The envelope webhook_id and X-SVC-Delivery header; the same on every retry.' })
  webhook_id: string;

  @ApiProperty({ example: 'course.enrolled' })
  event: string;

  @ApiProperty({
    enum: ['pending', 'delivered', 'failed', 'skipped'],
    example: 'delivered',
    description: '`skipped`: the event happened while the subscription was disabled and was not sent (recover sends it).',
  })
  status: string;

  @ApiProperty({ example: 1 })
  attempts: number;

  @ApiProperty({ type: Number, example: 200, nullable: true })
  last_status_code: number | null;

  @ApiProperty({ type: String, example: null, nullable: true })
  last_error: string | null;

  @ApiProperty({ example: '2025-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ type: String, example: '2025-11-22T10:00:00.412Z', nullable: true })
  delivered_at: string | null;

  @ApiProperty({ type: String, example: null, nullable: true })
  next_attempt_at: string | null;
}

export class DeliveryListDto extends PageMetaDto {
  @ApiProperty({ type: [DeliveryDto] })
  deliveries: DeliveryDto[];
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: String, format: 'date-time', example: '2025-11-22T10:00:00.000Z', description: 'When the request went out.' })
  attempted_at: string;

  @ApiProperty({
    type: 'integer',
    example: 503,
    nullable: true,
    description: 'The HTTP status your endpoint answered; null when no answer came (timeout, connection refused).',
  })
  status_code: number | null;

  @ApiProperty({ type: 'integer', example: 42, minimum: 0 })
  duration_ms: number;

  @ApiProperty({ type: String, example: 'HTTP 503', nullable: true, description: 'null on success.' })
  error: string | null;

  @ApiProperty({
    type: String,
    example: '{"error":"database unavailable"}',
    nullable: true,
    description: 'The first kilobyte of what your endpoint answered (null when it answered nothing).',
  })
  response_excerpt: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: 'The request headers this attempt was sent with, signatures included (lower-case names).',
    example: { 'content-type': 'application/json', 'webhook-id': 'whd_8KfL2mQ9rS4tU7vW1xY3zA', 'webhook-timestamp': '1763805600' },
  })
  request_headers: Record<string, string> | null;
}

/** The list item, with `attempts` as the history itself rather than its count. */
export class DeliveryDetailDto extends OmitType(DeliveryDto, ['attempts'] as const) {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The exact body sent (the envelope `{ event, timestamp, webhook_id, data }`), parsed.',
    example: { event: 'course.enrolled', timestamp: '2025-11-22T10:00:00.000Z', webhook_id: 'whd_8KfL2mQ9rS4tU7vW1xY3zA', data: { enrollment_id: 3 } },
  })
  payload: Record<string, unknown>;

  @ApiProperty({ type: [DeliveryAttemptDto], description: 'Every attempt, oldest first.' })
  attempts: DeliveryAttemptDto[];
}

export const MAX_RECOVER_AGE_MS = 14 * 86_400_000;

export class RecoverDeliveriesDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2025-11-21T08:00:00Z',
    description: 'Send again every failed or skipped delivery created since this time (ISO 8601 with offset, at most 14 days ago).',
  })
  @IsIsoTimestamp(MAX_RECOVER_AGE_MS, { message: 'since must be an ISO 8601 date-time with a UTC offset, at most 14 days ago' })
  since: string;
}

export class RecoverResultDto {
  @ApiProperty({ type: 'integer', example: 12, minimum: 0, description: 'How many deliveries were queued again.' })
  requeued: number;
}
