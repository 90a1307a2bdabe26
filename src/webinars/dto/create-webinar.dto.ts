import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { IsIsoTimestamp } from '../../common/iso-timestamp';
import { trimString } from '../../common/text';
import { MAX_INT_ID } from '../../common/params';

const FIVE_MINUTES_MS = 5 * 60_000;

export class CreateWebinarDto {
  @ApiProperty({ example: 'Office hours: async Rust', minLength: 1, maxLength: 200 })
  @Transform(trimString)
  @IsString()
  @IsNotEmpty()
  @Length(1, 200)
  title: string;

  @ApiProperty({ example: 501, description: 'One of your users (by platform user id) who hosts the session.' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  host_id: number;

  @ApiProperty({ example: '2026-12-01T15:00:00Z', description: 'ISO 8601 with a UTC offset; at most 5 minutes in the past.' })
  @IsIsoTimestamp(FIVE_MINUTES_MS)
  scheduled_at: string;

  @ApiPropertyOptional({ example: 60, minimum: 1, maximum: 1440, default: 60 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1440)
  duration_minutes?: number;

  @ApiPropertyOptional({ example: 100, minimum: 1, description: 'Seats (registered or joined attendees); absent = unlimited.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  max_attendees?: number;

  @ApiPropertyOptional({ example: false, default: false, description: 'Listed in GET /api/webinars/public.' })
  @IsOptional()
  @IsBoolean()
  is_public?: boolean;
}
