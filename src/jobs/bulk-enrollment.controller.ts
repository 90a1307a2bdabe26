import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth, AuthContext } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
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
      'Checks the shape of every row at once (400 validation_failed, fields named like enrollments[3].course_id; each row needs user_id or external_user_id), then answers 202 with a queued job and its Location. A background job then processes the rows, each exactly as POST /api/enroll would: its own transaction, debit, course.enrolled event and error code. One row failing never affects another. Each learner’s rows are processed in row order, so credits are spent in row order (different learners’ rows may overlap). Poll GET /api/jobs/{id} for progress and per-row results. A crash or restart never applies a row twice. Every row counts as one call against your monthly quota: a job the remaining quota cannot cover is refused up front (401 monthly_quota_exceeded, nothing counted). Rows accepted and not yet processed are capped per partner across both modes (the plan’s bulk_outstanding_rows): beyond, 429 rate_limited with Retry-After. Jobs are scheduled fairly: a partner with fewer rows waiting goes first, and a running job yields between slices of rows.',
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
    'monthly_quota_exceeded',
    'unsupported_media_type',
    'payload_too_large',
    'idempotency_key_reused',
    'idempotency_request_in_progress',
    ...KEYED_ERRORS,
  )
  async start(@Auth() auth: AuthContext, @Body() dto: BulkEnrollDto, @Res({ passthrough: true }) res: Response): Promise<JobAcceptedDto> {
    const { accepted, quota } = await this.jobs.startBulkEnrollment(auth, dto);
    // The guard's quota headers counted this call once; the rows made it count more.
    if (quota) res.setHeader('X-Quota-Remaining', String(quota.remaining));
    return accepted;
  }
}
