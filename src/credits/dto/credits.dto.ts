import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { PageMetaDto } from '../../common/pagination';
import { MAX_INT_ID } from '../../common/params';

export class TopUpDto {
  @ApiProperty({ example: 501, description: 'The learner to credit (one of yours, in this mode).' })
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  user_id: number;

  @ApiProperty({ example: 100, minimum: 1, maximum: 1_000_000 })
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  amount: number;

  @ApiPropertyOptional({ example: 'stripe', maxLength: 100, description: 'Free-text label of where the credits come from.' })
  @IsOptional()
  @IsString()
  @Length(0, 100)
  source?: string;

  @ApiPropertyOptional({
    example: 'pi_3PqR7s2eZvKYlo2C1',
    maxLength: 200,
    description:
      'Your payment reference, unique per partner and mode. Sending it again with the same user and amount returns the original transaction (200) without crediting twice; with another user or amount it is 409 reference_conflict.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  reference?: string;
}

export class TopUpResultDto {
  @ApiProperty({ example: 'txn_4fT9kLmQ2xYz8RbN1cVw0a' }) transaction_id: string;
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: 100 }) amount: number;
  @ApiProperty({ example: 140, description: 'Balance right after this top-up.' }) credits: number;
  @ApiProperty({ example: 'stripe', nullable: true, type: String }) source: string | null;
  @ApiProperty({ example: 'pi_3PqR7s2eZvKYlo2C1', nullable: true, type: String }) reference: string | null;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
}

export class BalanceDto {
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: 140 }) credits: number;
}

export class CreditTransactionDto {
  @ApiProperty({ example: 'txn_4fT9kLmQ2xYz8RbN1cVw0a' }) transaction_id: string;
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: -25, description: 'Signed: positive for top-ups, negative for enrolment debits.' }) amount: number;
  @ApiProperty({ enum: ['topup', 'enrollment'], example: 'enrollment' }) kind: string;
  @ApiProperty({ example: null, nullable: true, type: String }) source: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) reference: string | null;
  @ApiProperty({ example: 9001, nullable: true, type: Number }) enrollment_id: number | null;
  @ApiProperty({ example: 115 }) balance_after: number;
  @ApiProperty({ example: '2026-11-22T10:05:00.000Z' }) created_at: string;
}

export class CreditTransactionListDto extends PageMetaDto {
  @ApiProperty({ type: [CreditTransactionDto] }) transactions: CreditTransactionDto[];
}
