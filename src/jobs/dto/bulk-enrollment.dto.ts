import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { EnrollDto } from '../../enrollment/dto/enrollment.dto';
import { MAX_BULK_ROWS } from './job.dto';

/** One row: exactly the body of POST /api/enroll. */
export class BulkEnrollmentRowDto extends EnrollDto {}

export class BulkEnrollDto {
  @ApiProperty({
    type: [BulkEnrollmentRowDto],
    minItems: 1,
    maxItems: MAX_BULK_ROWS,
    description: 'Each row exactly as the body of POST /api/enroll, and processed as it would be; each learner’s rows in this order.',
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'enrollments must hold at least 1 row' })
  @ArrayMaxSize(MAX_BULK_ROWS, { message: `enrollments must hold at most ${MAX_BULK_ROWS} rows` })
  @ValidateNested({ each: true, message: 'each row of enrollments must be an object' })
  @Type(() => BulkEnrollmentRowDto)
  enrollments: BulkEnrollmentRowDto[];
}
