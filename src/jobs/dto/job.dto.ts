import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageMetaDto, PageQuery } from '../../common/pagination';
import type { JobStatus, JobType } from '../job.entity';

export const MAX_BULK_ROWS = 1000;

/** A job without its per-row results (lists, and the 202 that starts it). */
export class JobDto {
  @ApiProperty({ example: 'job_7Qm2xT9aLcV4pN8rS1dE0f', pattern: '^job_[0-9A-Za-z]{22}$' })
  id: string;

  @ApiProperty({ enum: ['enrollment.bulk'], example: 'enrollment.bulk' })
  type: JobType;

  @ApiProperty({
    enum: ['queued', 'running', 'completed'],
    example: 'running',
    description: 'queued until the worker starts it, completed once every row has an outcome.',
  })
  status: JobStatus;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_BULK_ROWS, example: 800, description: 'Rows in the job.' })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_BULK_ROWS, example: 412, description: 'Rows with an outcome so far (succeeded + failed).' })
  processed: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_BULK_ROWS, example: 410 })
  succeeded: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_BULK_ROWS, example: 2 })
  failed: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-23T08:00:00.000Z' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-23T08:00:00.120Z', description: 'null while queued.' })
  started_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'null until completed.' })
  completed_at: string | null;
}

/** Why a row failed: the error POST /api/enroll would have answered for it. */
export class JobRowErrorDto {
  @ApiProperty({ example: 'insufficient_credits', description: 'The error code POST /api/enroll gives for the same input.' })
  code: string;

  @ApiProperty({ example: 'The user does not have enough credits.' })
  message: string;

  @ApiPropertyOptional({
    description: 'As in the error envelope: [{ field, message }] for validation_failed, an object such as { required, available } for others.',
    oneOf: [{ type: 'array', items: { type: 'object' } }, { type: 'object' }],
    example: { required: 25, available: 10 },
  })
  details?: unknown;
}

export class JobResultDto {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_BULK_ROWS - 1, example: 0, description: 'Position of the row in the request (from 0).' })
  index: number;

  @ApiProperty({ enum: ['created', 'failed'], example: 'created' })
  status: 'created' | 'failed';

  @ApiPropertyOptional({ type: 'integer', example: 9001, description: 'When created.' })
  enrollment_id?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, example: 25, description: 'When created: the credits debited.' })
  credits_deducted?: number;

  @ApiPropertyOptional({ type: JobRowErrorDto, description: 'When failed.' })
  error?: JobRowErrorDto;
}

export class JobDetailDto extends JobDto {
  @ApiProperty({ type: [JobResultDto], description: 'Outcomes of the rows processed so far, by index.' })
  results: JobResultDto[];
}

export class JobAcceptedDto {
  @ApiProperty({ type: JobDto })
  job: JobDto;
}

export class JobListDto extends PageMetaDto {
  @ApiProperty({ type: [JobDto] })
  jobs: JobDto[];
}

export class ListJobsQuery extends PageQuery {}
