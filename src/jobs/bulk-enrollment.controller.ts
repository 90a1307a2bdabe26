import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { ApiIdempotencyKey } from '../idempotency/idempotency.swagger';
import { BulkEnrollDto } from './dto/bulk-enrollment.dto';
import { JobAcceptedDto } from './dto/job.dto';
import { JobsService } from './jobs.service';

@ApiTags('Enrolment')
@PlanFeature('enrollment')
@Controller('enroll')
export class BulkEnrollmentController {
  constructor(private readonly jobs: JobsService) {}

  @Post('bulk')
  @ApiIdempotencyKey()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Enrol up to 1,000 learners in one call, as a background job',
    description:
      'Checks the shape of every row at once (400 validation_failed, fields named like enrollments[3].course_id; each row needs user_id or external_user_id), then answers 202 with a queued job and its Location. A background job then processes the rows, each exactly as POST /api/enroll would: its own transaction, debit, course.enrolled event and error code. One row failing never affects another. Each learner’s rows are processed in row order, so credits are spent in row order (different learners’ rows may overlap). Poll GET /api/jobs/{id} for progress and per-row results. A crash or restart never applies a row twice. Counts as one call against your quota.',
  })
  @ApiSuccess(JobAcceptedDto, {
    status: 202,
    description: 'The job is queued.',
    headers: {
      Location: { description: 'Where to poll the job: /api/jobs/{id}.', schema: { type: 'string', example: '/api/jobs/job_7Qm2xT9aLcV4pN8rS1dE0f' } },
    },
  })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'unsupported_media_type',
    'payload_too_large',
    'idempotency_key_reused',
    'idempotency_request_in_progress',
    ...KEYED_ERRORS,
  )
  start(@CurrentScope() scope: Scope, @Body() dto: BulkEnrollDto): Promise<JobAcceptedDto> {
    return this.jobs.startBulkEnrollment(scope, dto);
  }
}
