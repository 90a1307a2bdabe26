import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { PageQuery } from '../common/pagination';
import { intIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { ApiIdempotencyKey } from '../idempotency/idempotency.swagger';
import { EnrollDto, EnrollmentDto, EnrollmentListDto, EnrollResultDto, ProgressDto, ProgressResultDto } from './dto/enrollment.dto';
import { EnrollmentsService } from './enrollments.service';
import { ProgressService } from './progress.service';

const POST_ERRORS = ['validation_failed', 'invalid_json', 'idempotency_key_reused', 'idempotency_request_in_progress'] as const;

@ApiTags('Enrolment')
@PlanFeature('enrollment')
@Controller()
export class EnrollmentController {
  constructor(
    private readonly enrollments: EnrollmentsService,
    private readonly progress: ProgressService,
  ) {}

  @Post('enroll')
  @ApiIdempotencyKey()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Enrol a learner in a published course',
    description:
      'Identify the learner by user_id and/or external_user_id (both must name the same learner). With deduct_credits (default true) the course’s credit_cost is debited; a balance below it is 402 and nothing is written. One transaction writes the enrolment, the debit, the course’s enrolled count and course.enrolled.',
  })
  @ApiSuccess(EnrollResultDto, { status: 201 })
  @ApiErrors(...POST_ERRORS, 'user_not_found', 'course_not_found', 'insufficient_credits', 'already_enrolled', ...KEYED_ERRORS)
  enroll(@CurrentScope() scope: Scope, @Body() dto: EnrollDto): Promise<EnrollResultDto> {
    return this.enrollments.enroll(scope, dto);
  }

  @Get('enrollments/:id')
  @ApiOperation({ summary: 'One enrolment with its progress' })
  @ApiParam({ name: 'id', type: Number, example: 9001 })
  @ApiSuccess(EnrollmentDto)
  @ApiErrors('validation_failed', 'enrollment_not_found', ...KEYED_ERRORS)
  get(@CurrentScope() scope: Scope, @Param('id', intIdParam()) id: number): Promise<EnrollmentDto> {
    return this.enrollments.get(scope, id);
  }

  @Get('users/:id/enrollments')
  @ApiOperation({ summary: "A learner's enrolments", description: 'Newest first, paginated.' })
  @ApiParam({ name: 'id', type: Number, example: 501 })
  @ApiSuccess(EnrollmentListDto)
  @ApiErrors('validation_failed', 'user_not_found', ...KEYED_ERRORS)
  listForUser(@CurrentScope() scope: Scope, @Param('id', intIdParam()) userId: number, @Query() query: PageQuery): Promise<EnrollmentListDto> {
    return this.enrollments.listForUser(scope, userId, query);
  }

  @Post('enrollments/:id/progress')
  @ApiIdempotencyKey()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Record a completed topic',
    description:
      'A has_quiz topic’s quiz counts as passed only with quiz_passed: true (send the topic again with it later to pass a pending quiz). Each newly completed topic emits course.progress; a repeat changes nothing and emits nothing. When every topic is done and every quiz passed, the enrolment is completed and the certificate issued in the same transaction.',
  })
  @ApiParam({ name: 'id', type: Number, example: 9001 })
  @ApiSuccess(ProgressResultDto)
  @ApiErrors(...POST_ERRORS, 'enrollment_not_found', 'topic_not_found', ...KEYED_ERRORS)
  recordProgress(@CurrentScope() scope: Scope, @Param('id', intIdParam()) id: number, @Body() dto: ProgressDto): Promise<ProgressResultDto> {
    return this.progress.record(scope, id, dto);
  }
}
