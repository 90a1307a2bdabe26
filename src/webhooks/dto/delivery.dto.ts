import { ApiProperty } from '@nestjs/swagger';
import { PageQuery, PageMetaDto } from '../../common/pagination';

export class ListDeliveriesQuery extends PageQuery {}

export class DeliveryDto {
  @ApiProperty({ example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA', description: 'The envelope webhook_id and X-SVC-Delivery header; the same on every retry.' })
  webhook_id: string;

  @ApiProperty({ example: 'course.enrolled' })
  event: string;

  @ApiProperty({ enum: ['pending', 'delivered', 'failed'], example: 'delivered' })
  status: string;

  @ApiProperty({ example: 1 })
  attempts: number;

  @ApiProperty({ type: Number, example: 200, nullable: true })
  last_status_code: number | null;

  @ApiProperty({ type: String, example: null, nullable: true })
  last_error: string | null;

  @ApiProperty({ example: '2025-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ type: String, example: '2025-11-22T10:00:00.412Z', nullable: true })
  delivered_at: string | null;

  @ApiProperty({ type: String, example: null, nullable: true })
  next_attempt_at: string | null;
}

export class DeliveryListDto extends PageMetaDto {
  @ApiProperty({ type: [DeliveryDto] })
  deliveries: DeliveryDto[];
}
