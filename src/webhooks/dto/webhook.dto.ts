import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { PageQuery, PageMetaDto } from '../../common/pagination';
import { PUBLIC_EVENT_TYPES, PublicEventType } from '../../events/event-map';

const URL_RULES =
  'https is required for live keys. The port must be 80, 443, or 1024–65535 other than well-known internal service ports (5432, 6379, 11211, 27017, …); private and reserved addresses are refused in production.';

const EVENTS_MESSAGE = `each value in events must be one of: ${PUBLIC_EVENT_TYPES.join(', ')}`;

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://partner.example.com/hooks/learning', maxLength: 2048, description: URL_RULES })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ example: ['course.enrolled', 'course.completed'], enum: PUBLIC_EVENT_TYPES, isArray: true, minItems: 1, maxItems: 9 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PUBLIC_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(PUBLIC_EVENT_TYPES, { each: true, message: EVENTS_MESSAGE })
  events: PublicEventType[];

  @ApiProperty({ example: 'whsec-9f8e7d6c5b4a3210', minLength: 16, maxLength: 256, writeOnly: true, description: 'Signs deliveries; never returned.' })
  @IsString()
  @Length(16, 256)
  secret: string;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://partner.example.com/hooks/v2', maxLength: 2048, description: URL_RULES })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ example: ['course.enrolled'], enum: PUBLIC_EVENT_TYPES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PUBLIC_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(PUBLIC_EVENT_TYPES, { each: true, message: EVENTS_MESSAGE })
  events?: PublicEventType[];

  @ApiPropertyOptional({
    example: 'whsec-rotated-0123456789',
    minLength: 16,
    maxLength: 256,
    writeOnly: true,
    description: 'Replaces the secret at once (and ends any rotation overlap). To change it without missing events, use rotate-secret.',
  })
  @IsOptional()
  @IsString()
  @Length(16, 256)
  secret?: string;

  @ApiPropertyOptional({ enum: ['active', 'disabled'], example: 'active', description: 'Re-enable a subscription disabled by a 410, or pause one.' })
  @IsOptional()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';
}

export class ListWebhooksQuery extends PageQuery {}

/** What registration answers: the secret is never echoed, so it appears in no log or replay. */
export class WebhookCreatedDto {
  @ApiProperty({ example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  id: string;

  @ApiProperty({ example: 'https://partner.example.com/hooks/learning' })
  url: string;

  @ApiProperty({ example: ['course.enrolled', 'course.completed'], enum: PUBLIC_EVENT_TYPES, isArray: true })
  events: string[];

  @ApiProperty({ enum: ['active', 'disabled'], example: 'active' })
  status: string;

  @ApiProperty({ example: '2025-11-22T10:00:00.000Z' })
  created_at: string;
}

export class WebhookDto extends WebhookCreatedDto {
  @ApiProperty({
    type: String,
    example: null,
    nullable: true,
    description: 'Why it was disabled: by the partner, the endpoint answered 410, or every delivery failed for longer than the auto-disable period.',
  })
  disabled_reason: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    example: null,
    nullable: true,
    description: 'Until this time deliveries are also signed with the secret before the last rotation; null when no previous secret is in force.',
  })
  previous_secret_expires_at: string | null;

  @ApiProperty({ example: '2025-11-22T10:00:00.000Z' })
  updated_at: string;
}

export class WebhookListDto extends PageMetaDto {
  @ApiProperty({ type: [WebhookDto] })
  webhooks: WebhookDto[];
}

export const MAX_PREVIOUS_SECRET_SECONDS = 604_800;

export class RotateSecretDto {
  @ApiProperty({ example: 'whsec-rotated-0123456789', minLength: 16, maxLength: 256, writeOnly: true, description: 'The new signing secret; never returned.' })
  @IsString()
  @Length(16, 256)
  secret: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_PREVIOUS_SECRET_SECONDS,
    default: 86_400,
    example: 86_400,
    description: 'Seconds during which deliveries are signed with both the new and the previous secret (0: the previous secret stops at once).',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_PREVIOUS_SECRET_SECONDS)
  previous_secret_expires_in?: number;
}

export class WebhookDeletedDto {
  @ApiProperty({ example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  id: string;

  @ApiProperty({ example: true })
  deleted: boolean;
}
