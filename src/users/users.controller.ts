import { Body, Controller, Get, Param, PipeTransform, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { DomainError } from '../common/errors';
import { intIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { CreateUserDto, ListUsersQuery, UpsertUserDto, UserDto, UserListDto } from './dto/user.dto';
import { toUserView, UsersService } from './users.service';

/** The partner's own id in a path: 1–128 characters once URL-decoded, no NUL (PostgreSQL text cannot hold it). */
const externalUserIdPipe: PipeTransform<string, string> = {
  transform(value: string): string {
    if (value.length < 1 || value.length > 128 || value.includes('\u0000')) {
      throw new DomainError('validation_failed', [{ field: 'external_user_id', message: 'external_user_id must be 1 to 128 characters without NUL' }]);
    }
    return value;
  },
};

const EXTERNAL_ID_PARAM = {
  name: 'external_user_id',
  type: String,
  example: 'acme-user-1001',
  description: 'Your own id of the learner, URL-encoded (e.g. `acme%2Fuser%201` for `acme/user 1`); 1–128 characters.',
} as const;

@ApiTags('Users')
@PlanFeature('users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @ApiOperation({ summary: 'Register a learner', description: 'Emits user.registered. external_user_id is unique per partner and mode.' })
  @ApiSuccess(UserDto, { status: 201 })
  @ApiErrors('validation_failed', 'invalid_json', 'external_user_id_taken', 'idempotency_key_reused', 'idempotency_request_in_progress', ...KEYED_ERRORS)
  create(@CurrentScope() scope: Scope, @Body() dto: CreateUserDto): Promise<UserDto> {
    return this.users.create(scope, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List your learners, or find one by external_user_id' })
  @ApiSuccess(UserListDto)
  @ApiErrors('validation_failed', ...KEYED_ERRORS)
  list(@CurrentScope() scope: Scope, @Query() query: ListUsersQuery) {
    return this.users.list(scope, query);
  }

  @Get('external/:external_user_id')
  @ApiOperation({ summary: 'One learner by your own id', description: 'Finds the learner whose external_user_id is the (URL-decoded) path segment.' })
  @ApiParam(EXTERNAL_ID_PARAM)
  @ApiSuccess(UserDto)
  @ApiErrors('validation_failed', 'user_not_found', ...KEYED_ERRORS)
  async getByExternalId(@CurrentScope() scope: Scope, @Param('external_user_id', externalUserIdPipe) externalUserId: string): Promise<UserDto> {
    return toUserView(await this.users.getByExternalId(scope, externalUserId));
  }

  @Put('external/:external_user_id')
  @ApiOperation({
    summary: 'Create or update a learner by your own id',
    description:
      'An upsert keyed by your external_user_id: 201 when the learner is created (emits user.registered), 200 when an existing learner is updated or already had this name and email (no event). Concurrent PUTs of one id end with one learner and one user.registered.',
  })
  @ApiParam(EXTERNAL_ID_PARAM)
  @ApiSuccess(UserDto, { status: 201, description: 'Created; user.registered is emitted.' })
  @ApiSuccess(UserDto, { status: 200, description: 'Updated, or unchanged; no event.' })
  @ApiErrors('validation_failed', 'invalid_json', 'unsupported_media_type', 'payload_too_large', ...KEYED_ERRORS)
  async upsertByExternalId(
    @CurrentScope() scope: Scope,
    @Param('external_user_id', externalUserIdPipe) externalUserId: string,
    @Body() dto: UpsertUserDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserDto> {
    const { created, user } = await this.users.upsertByExternalId(scope, externalUserId, dto);
    res.status(created ? 201 : 200);
    return user;
  }

  @Get(':id')
  @ApiOperation({ summary: 'One learner' })
  @ApiParam({ name: 'id', type: Number, example: 501 })
  @ApiSuccess(UserDto)
  @ApiErrors('validation_failed', 'user_not_found', ...KEYED_ERRORS)
  async get(@CurrentScope() scope: Scope, @Param('id', intIdParam()) id: number): Promise<UserDto> {
    return toUserView(await this.users.get(scope, id));
  }
}
