import { Body, Controller, Get, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { DomainError } from '../common/errors';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { CreateUserDto, ListUsersQuery, UserDto, UserListDto } from './dto/user.dto';
import { toUserView, UsersService } from './users.service';

export const userIdPipe = (field = 'id') =>
  new ParseIntPipe({ exceptionFactory: () => new DomainError('validation_failed', [{ field, message: `${field} must be a positive integer` }]) });

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

  @Get(':id')
  @ApiOperation({ summary: 'One learner' })
  @ApiParam({ name: 'id', type: Number, example: 501 })
  @ApiSuccess(UserDto)
  @ApiErrors('validation_failed', 'user_not_found', ...KEYED_ERRORS)
  async get(@CurrentScope() scope: Scope, @Param('id', userIdPipe()) id: number): Promise<UserDto> {
    return toUserView(await this.users.get(scope, id));
  }
}
