import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { PageQuery } from '../common/pagination';
import { intIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { ApiIdempotencyKey } from '../idempotency/idempotency.swagger';
import { CreditsService } from './credits.service';
import { BalanceDto, CreditTransactionListDto, TopUpDto, TopUpResultDto } from './dto/credits.dto';

@ApiTags('Credits')
@PlanFeature('credits')
@Controller('credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Post('topup')
  @ApiIdempotencyKey()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add credits to a learner',
    description:
      'Appends a top-up to the ledger and emits credits.purchased. A repeated `reference` with the same user and amount answers 200 with the original transaction and credits nothing; with another user or amount, 409 reference_conflict.',
  })
  @ApiSuccess(TopUpResultDto, { status: 201, description: 'Credited' })
  @ApiSuccess(TopUpResultDto, { status: 200, description: 'The reference was already used for this same top-up: the original transaction, nothing credited' })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'user_not_found',
    'reference_conflict',
    'idempotency_key_reused',
    'idempotency_request_in_progress',
    ...KEYED_ERRORS,
  )
  async topUp(@CurrentScope() scope: Scope, @Body() dto: TopUpDto, @Res({ passthrough: true }) res: Response): Promise<TopUpResultDto> {
    const outcome = await this.credits.topUp(scope, dto);
    if (!outcome.created) res.status(200);
    return outcome.result;
  }

  @Get('balance/:user_id')
  @ApiOperation({ summary: "A learner's credit balance", description: '0 for a learner who never had credits.' })
  @ApiParam({ name: 'user_id', type: Number, example: 501 })
  @ApiSuccess(BalanceDto)
  @ApiErrors('validation_failed', 'user_not_found', ...KEYED_ERRORS)
  balance(@CurrentScope() scope: Scope, @Param('user_id', intIdParam('user_id')) userId: number): Promise<BalanceDto> {
    return this.credits.balance(scope, userId);
  }

  @Get('transactions/:user_id')
  @ApiOperation({
    summary: "A learner's credit ledger",
    description: 'Newest first. Top-ups are positive, enrolment debits negative; balance_after is the balance right after each row.',
  })
  @ApiParam({ name: 'user_id', type: Number, example: 501 })
  @ApiSuccess(CreditTransactionListDto)
  @ApiErrors('validation_failed', 'user_not_found', ...KEYED_ERRORS)
  transactions(
    @CurrentScope() scope: Scope,
    @Param('user_id', intIdParam('user_id')) userId: number,
    @Query() query: PageQuery,
  ): Promise<CreditTransactionListDto> {
    return this.credits.transactions(scope, userId, query);
  }
}
