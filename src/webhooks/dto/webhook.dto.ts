import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
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

  @ApiPropertyOptional({ example: 'whsec-rotated-0123456789', minLength: 16, maxLength: 256, writeOnly: true })
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

/** What registration answers (contract section 11): the secret is never echoed. */
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
  @ApiProperty({ type: String, example: null, nullable: true, description: 'Why the platform disabled it (e.g. the endpoint answered 410).' })
  disabled_reason: string | null;

  @ApiProperty({ example: '2025-11-22T10:00:00.000Z' })
  updated_at: string;
}

export class WebhookListDto extends PageMetaDto {
  @ApiProperty({ type: [WebhookDto] })
  webhooks: WebhookDto[];
}

export class WebhookDeletedDto {
  @ApiProperty({ example: 'whk_4f9TzQe1LmN8pR2sV6xY0a' })
  id: string;

  @ApiProperty({ example: true })
  deleted: boolean;
}
