import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_INT_ID } from '../../common/params';

export class IssueCertificateDto {
  @ApiProperty({ example: 501, description: 'The learner (platform user id).' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  user_id: number;

  @ApiProperty({ example: 42, description: 'A course the learner is enrolled in.' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  course_id: number;

  @ApiPropertyOptional({
    example: false,
    default: false,
    description: 'Admin keys only: issue even though quizzes are not passed. Every topic must still be completed.',
  })
  @IsOptional()
  @IsBoolean()
  override_quiz?: boolean;
}

export class CertificateDto {
  @ApiProperty({ example: 'TST-2026-7K3QX9M2PD' }) certificate_id: string;
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: 42 }) course_id: number;
  @ApiProperty({ example: 'Ada Lovelace', description: 'Frozen at issue.' }) holder_name: string;
  @ApiProperty({ example: 'Introduction to Data Science', description: 'Frozen at issue.' }) course_title: string;
  @ApiProperty({ example: '2026-11-22', format: 'date' }) issued_at: string;
  @ApiProperty({ example: 'Learning Platform (test)', description: '"Learning Platform", or "Learning Platform (test)" for test-mode certificates.' })
  platform: string;
  @ApiProperty({
    example: 'https://api.example.com/verify/TST-2026-7K3QX9M2PD',
    format: 'uri',
    description: 'The verification page (HTML) for people; machines use GET /api/certificates/verify/{cert_id}.',
  })
  verify_url: string;
  @ApiProperty({ example: 'https://api.example.com/api/certificates/TST-2026-7K3QX9M2PD/download', format: 'uri' }) download_url: string;
  @ApiProperty({ example: false }) override_quiz: boolean;
}

export class RevokedCertificateDto extends CertificateDto {
  @ApiProperty({ example: '2026-11-23T09:30:00.000Z', description: 'When it was first revoked; revoking again changes nothing.' })
  revoked_at: string;
}

export class PublicCertificateDto {
  @ApiProperty({ example: 'ECK-2026-7K3QX9M2PD' }) id: string;
  @ApiProperty({ example: 'Ada Lovelace' }) holder_name: string;
  @ApiProperty({ example: 'Introduction to Data Science' }) course_title: string;
  @ApiProperty({ example: '2026-11-22', format: 'date' }) issued_at: string;
  @ApiProperty({ example: 'Learning Platform' }) platform: string;
}

export class VerificationDto {
  @ApiProperty({ example: true, description: 'false when the certificate has been revoked (or does not exist: 404).' }) valid: boolean;
  @ApiProperty({
    example: false,
    description: 'true for a certificate issued with a test key (`TST-…`): a partner integration test, not a real certificate.',
  })
  test: boolean;
  @ApiProperty({ type: PublicCertificateDto, nullable: true }) certificate: PublicCertificateDto | null;
}
