import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { WEBINAR_STATUSES, WebinarStatus } from '../webinar.entity';

export class ListWebinarsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: WEBINAR_STATUSES, example: 'scheduled' })
  @IsOptional()
  @IsIn(WEBINAR_STATUSES, { message: `status must be one of ${WEBINAR_STATUSES.join(', ')}` })
  status?: WebinarStatus;
}

export class PublicWebinarsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live', description: "Which mode's public webinars to list (test lets you preview yours)." })
  @IsOptional()
  @IsIn(['live', 'test'], { message: 'mode must be live or test' })
  mode: 'live' | 'test' = 'live';
}
