import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { UserRefDto } from '../../users/dto/user.dto';
import { PageMetaDto } from '../../common/pagination';
import { MAX_INT_ID } from '../../common/params';

export class EnrollDto extends UserRefDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_INT_ID, example: 12, description: 'A published course.' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  course_id: number;

  @ApiPropertyOptional({ example: true, default: true, description: "Deduct the course's credit_cost from the learner's balance (402 when it is too low)." })
  @IsOptional()
  @IsBoolean()
  deduct_credits?: boolean;
}

export class EnrollResultDto {
  @ApiProperty({ example: 9001 }) enrollment_id: number;
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: 'acme-user-1001' }) external_user_id: string;
  @ApiProperty({ example: 12 }) course_id: number;
  @ApiProperty({ enum: ['active'], example: 'active' }) status: 'active';
  @ApiProperty({ example: 0 }) progress_percent: number;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) enrolled_at: string;
  @ApiProperty({ example: 25 }) credits_deducted: number;
  @ApiProperty({ example: 115, description: "The learner's balance after this enrolment." }) credits_remaining: number;
}

export class EnrollmentDto {
  @ApiProperty({ example: 9001 }) enrollment_id: number;
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: 'acme-user-1001' }) external_user_id: string;
  @ApiProperty({ example: 12 }) course_id: number;
  @ApiProperty({ enum: ['active', 'completed'], example: 'active' }) status: 'active' | 'completed';
  @ApiProperty({ example: 33, description: 'round(100 × completed_topics / total_topics)' }) progress_percent: number;
  @ApiProperty({ example: 1, description: 'Topics marked complete (a has_quiz topic counts even while its quiz is pending).' }) completed_topics: number;
  @ApiProperty({ example: 3 }) total_topics: number;
  @ApiProperty({ example: 1, description: 'has_quiz topics whose quiz has not been passed yet.' }) quizzes_pending: number;
  @ApiProperty({ example: 25 }) credits_deducted: number;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) enrolled_at: string;
  @ApiProperty({ example: null, nullable: true, type: String }) completed_at: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) certificate_id: string | null;
}

export class EnrollmentListDto extends PageMetaDto {
  @ApiProperty({ type: [EnrollmentDto] }) enrollments: EnrollmentDto[];
}

export class ProgressDto {
  @ApiProperty({ example: 77, description: 'A topic of the enrolment’s course.' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  topic_id: number;

  @ApiPropertyOptional({ example: true, description: 'For a has_quiz topic: the quiz was passed. A has_quiz topic counts as passed only with true.' })
  @IsOptional()
  @IsBoolean()
  quiz_passed?: boolean;
}

export class ProgressResultDto {
  @ApiProperty({ example: 9001 }) enrollment_id: number;
  @ApiProperty({ example: 67 }) progress_percent: number;
  @ApiProperty({ example: 2 }) completed_topics: number;
  @ApiProperty({ example: 3 }) total_topics: number;
  @ApiProperty({ example: 0 }) quizzes_pending: number;
  @ApiProperty({ enum: ['active', 'completed'], example: 'active' }) status: 'active' | 'completed';
  @ApiProperty({ example: null, nullable: true, type: String }) completed_at: string | null;
  @ApiProperty({ example: null, nullable: true, type: String, description: 'Set once the course is completed and the certificate issued.' }) certificate_id:
    string | null;
}
