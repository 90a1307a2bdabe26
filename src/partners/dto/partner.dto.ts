import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEmail, IsIn, IsOptional, IsString, IsUrl, Length, Matches } from 'class-validator';
import { MODES } from '../../common/scope';
import { ORIGIN_PATTERN, trimString } from '../../common/text';
import { PageQuery, PageMetaDto } from '../../common/pagination';
import { PLAN_CODES } from '../../plans/plan';

const trim = trimString;

export class RegisterPartnerDto {
  @ApiProperty({ example: 'Acme Learning', minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: 'dev@acme.example' })
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @Length(3, 320)
  email: string;

  @ApiPropertyOptional({ example: 'https://acme.example' })
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'website must be an http(s) URL' })
  @Length(1, 2048)
  website?: string;
}

export class ProductionAccessDto {
  @ApiProperty({ example: 'We embed beginner Python courses in our HR onboarding product for 2,000 employees.', minLength: 10, maxLength: 2000 })
  @Transform(trim)
  @IsString()
  @Length(10, 2000)
  use_case: string;
}

export class RejectRequestDto {
  @ApiProperty({ example: 'Please describe how learners reach the courses.', minLength: 1, maxLength: 1000 })
  @Transform(trim)
  @IsString()
  @Length(1, 1000)
  reason: string;
}

export class CreateKeyDto {
  @ApiProperty({ enum: MODES, example: 'test' })
  @IsIn(MODES, { message: 'mode must be test or live' })
  mode: 'test' | 'live';
}

export class UpdatePartnerDto {
  @ApiPropertyOptional({ enum: PLAN_CODES, example: 'growth' })
  @IsOptional()
  @IsIn(PLAN_CODES, { message: `plan must be one of ${PLAN_CODES.join(', ')}` })
  plan?: (typeof PLAN_CODES)[number];

  @ApiPropertyOptional({ enum: ['active', 'suspended'], example: 'active' })
  @IsOptional()
  @IsIn(['active', 'suspended'], { message: 'status must be active or suspended' })
  status?: 'active' | 'suspended';

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: ORIGIN_PATTERN.source },
    example: ['https://app.acme.example'],
    description: 'Origins (scheme://host[:port]) allowed to call the API from a browser and to embed webinars.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(ORIGIN_PATTERN, { each: true, message: 'each allowed origin must look like https://host[:port] with no path' })
  allowed_origins?: string[];
}

export class ListAccessRequestsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['pending', 'approved', 'rejected'], example: 'pending' })
  @IsOptional()
  @IsIn(['pending', 'approved', 'rejected'], { message: 'status must be pending, approved or rejected' })
  status?: 'pending' | 'approved' | 'rejected';
}

// ---- responses ----

export class PartnerDto {
  @ApiProperty({ example: 17 }) id: number;
  @ApiProperty({ example: 'Acme Learning' }) name: string;
  @ApiProperty({ example: 'dev@acme.example' }) email: string;
  @ApiProperty({ enum: PLAN_CODES, example: 'starter' }) plan: string;
  @ApiProperty({ enum: ['active', 'suspended'], example: 'active' }) status: string;
}

export class IssuedKeyDto {
  @ApiProperty({ example: 'key_4q8ZpX2mT7bN1vC9kR3sLw' }) id: string;
  @ApiProperty({ example: 'eck_test_3kT9pQ2mZ8xV4bN7cR1sLw6yH0jF5dG2A1b2C3', description: 'Shown once. Store it now.' }) key: string;
  @ApiProperty({ enum: MODES, example: 'test' }) mode: string;
  @ApiProperty({ example: 'eck_test_3kT9p' }) key_prefix: string;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
}

export class RegistrationDto {
  @ApiProperty({ type: PartnerDto }) partner: PartnerDto;
  @ApiProperty({ type: IssuedKeyDto }) api_key: IssuedKeyDto;
}

export class UsageDto {
  @ApiProperty({ example: '2026-11' }) month: string;
  @ApiProperty({ example: 42 }) calls: number;
  @ApiProperty({ type: Number, example: 500, nullable: true, description: 'null on unlimited plans' }) limit: number | null;
  @ApiProperty({ type: Number, example: 458, nullable: true }) remaining: number | null;
}

export class PlanDto {
  @ApiProperty({ example: 'starter' }) code: string;
  @ApiProperty({ example: 'Starter (free)' }) name: string;
  @ApiProperty({ type: Number, example: 500, nullable: true }) monthly_quota: number | null;
  @ApiProperty({ example: 5 }) rate_limit_per_second: number;
  @ApiProperty({ type: Number, example: 2, nullable: true }) webhook_event_types: number | null;
  @ApiProperty({ type: Number, example: 2, nullable: true, description: 'Webhook subscriptions per mode; null = unlimited.' })
  webhook_subscriptions: number | null;
  @ApiProperty({
    type: Number,
    example: 5000,
    nullable: true,
    description: 'Bulk enrolment rows accepted and not yet processed, across both modes; null = unlimited.',
  })
  bulk_outstanding_rows: number | null;
  @ApiProperty({ type: Number, example: 0, nullable: true }) webinar_rooms: number | null;
  @ApiProperty({ type: [String], example: ['catalogue', 'account', 'webhooks'] }) features: string[];
}

export class PartnerProfileDto extends PartnerDto {
  @ApiProperty({ type: String, example: 'https://acme.example', nullable: true }) website: string | null;
  @ApiProperty({ type: PlanDto }) plan_details: PlanDto;
  @ApiProperty({ enum: MODES, example: 'test', description: "The calling key's mode." }) mode: string;
  @ApiProperty({ type: UsageDto }) usage: UsageDto;
  @ApiProperty({ type: [String], example: ['https://app.acme.example'] }) allowed_origins: string[];
  @ApiProperty({ example: true, description: 'Whether the address was verified (the link sent at registration); production access needs it.' })
  email_verified: boolean;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
}

export class AccessRequestDto {
  @ApiProperty({ example: 'par_8mQ2xT5vB9nC1kR4sLw7yH' }) id: string;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected'], example: 'pending' }) status: string;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
}

export class AccessRequestCreatedDto {
  @ApiProperty({ type: AccessRequestDto }) request: AccessRequestDto;
}

export class AdminAccessRequestDto extends AccessRequestDto {
  @ApiProperty({ example: 17 }) partner_id: number;
  @ApiProperty({ example: 'Acme Learning' }) partner_name: string;
  @ApiProperty({ example: 'We embed courses in our HR product.' }) use_case: string;
  @ApiProperty({ type: String, example: null, nullable: true }) reason: string | null;
  @ApiProperty({ type: String, example: null, nullable: true }) reviewed_at: string | null;
}

export class AccessRequestListDto extends PageMetaDto {
  @ApiProperty({ type: [AdminAccessRequestDto] }) requests: AdminAccessRequestDto[];
}

export class ApprovalDto {
  @ApiProperty({ type: AdminAccessRequestDto }) request: AdminAccessRequestDto;
  @ApiProperty({ type: IssuedKeyDto }) api_key: IssuedKeyDto;
}

export class KeyViewDto {
  @ApiProperty({ example: 'key_4q8ZpX2mT7bN1vC9kR3sLw' }) id: string;
  @ApiProperty({ enum: MODES, example: 'live' }) mode: string;
  @ApiProperty({ enum: ['partner', 'admin'], example: 'partner' }) role: string;
  @ApiProperty({ type: String, example: null, nullable: true }) name: string | null;
  @ApiProperty({ example: 'eck_live_3kT9p' }) key_prefix: string;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: String, example: null, nullable: true }) last_used_at: string | null;
  @ApiProperty({ type: String, example: '2026-11-22T11:00:00.000Z', nullable: true }) revoked_at: string | null;
}

export class AdminPartnerDto extends PartnerDto {
  @ApiProperty({ type: String, example: 'https://acme.example', nullable: true }) website: string | null;
  @ApiProperty({ type: [String], example: ['https://app.acme.example'] }) allowed_origins: string[];
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: [KeyViewDto] }) keys: KeyViewDto[];
}

export class RejectionDto {
  @ApiProperty({ type: AdminAccessRequestDto }) request: AdminAccessRequestDto;
}

export class VerifyEmailQuery {
  @ApiProperty({
    example: 'q3X9mV0bL2cR7tY1uW4zA8sD6fG5hJ2kN0pQ9rT3vX1',
    pattern: '^[A-Za-z0-9_-]{43}$',
    minLength: 43,
    maxLength: 43,
    description: 'The token of the link mailed at registration.',
  })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'token must be the 43-character token of a verification link' })
  token: string;
}

export class EmailVerifiedDto {
  @ApiProperty({ example: 42 }) partner_id: number;
  @ApiProperty({ example: 'dev@acme.example', format: 'email' }) email: string;
  @ApiProperty({ enum: [true], example: true }) email_verified: true;
  @ApiProperty({ example: '2026-11-27T09:00:00.000Z', format: 'date-time' }) email_verified_at: string;
}
