import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { prefixedIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { JobDetailDto, JobListDto, ListJobsQuery } from './dto/job.dto';
import { JobsService } from './jobs.service';

@ApiTags('Enrolment')
@PlanFeature('enrollment')
@Controller('jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get()
  @ApiOperation({ summary: 'Your background jobs', description: 'Newest first, paginated, without their per-row results.' })
  @ApiSuccess(JobListDto)
  @ApiErrors('validation_failed', ...KEYED_ERRORS)
  list(@CurrentScope() scope: Scope, @Query() query: ListJobsQuery): Promise<JobListDto> {
    return this.jobs.list(scope, query);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One job with its progress and per-row results',
    description:
      'results holds the outcome of every row processed so far, by index: created (with enrollment_id and credits_deducted) or failed (with the error POST /api/enroll would have answered). Another partner’s or mode’s job is 404.',
  })
  @ApiParam({ name: 'id', type: String, example: 'job_7Qm2xT9aLcV4pN8rS1dE0f' })
  @ApiSuccess(JobDetailDto)
  @ApiErrors('validation_failed', 'job_not_found', ...KEYED_ERRORS)
  get(@CurrentScope() scope: Scope, @Param('id', prefixedIdParam('job', 'job_not_found', 22)) id: string): Promise<JobDetailDto> {
    return this.jobs.get(scope, id);
  }
}
