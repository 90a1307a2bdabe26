import { ApiProperty } from '@nestjs/swagger';
import { WEBINAR_STATUSES, WebinarStatus } from '../webinar.entity';
import { PageMetaDto } from '../../common/pagination';

const ID = 'wbn_4fJ9kQ2xT7mN1pR8sV3wYz';
const BASE = 'https://api.example.com';

/** Fields every partner-facing webinar view shares. */
export class WebinarDto {
  @ApiProperty({ example: ID }) webinar_id: string;
  @ApiProperty({ example: 'Office hours: async Rust' }) title: string;
  @ApiProperty({ enum: WEBINAR_STATUSES, example: 'scheduled' }) status: WebinarStatus;
  @ApiProperty({ example: '2026-12-01T15:00:00.000Z' }) scheduled_at: string;
  @ApiProperty({ example: 60 }) duration_minutes: number;
  @ApiProperty({ example: 100, nullable: true, type: Number }) max_attendees: number | null;
  @ApiProperty({ example: false }) is_public: boolean;
  @ApiProperty({ example: 501 }) host_id: number;
  @ApiProperty({ example: `${BASE}/live/join?wbn=${ID}` }) attendee_join_url: string;
  @ApiProperty({ example: `${BASE}/live/embed/${ID}` }) embed_url: string;
  @ApiProperty({ example: 12, description: 'Attendees holding a seat (registered or joined).' }) attendee_count: number;
  @ApiProperty({ example: null, nullable: true, type: String }) started_at: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) ended_at: string | null;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) created_at: string;
}

/** Creation result: the only time the host join URL (with its token) is shown. */
export class CreatedWebinarDto extends WebinarDto {
  @ApiProperty({ example: `${BASE}/live/join?wbn=${ID}&t=Xc82kP0qLm4RtY7uVb1NwE5zHa9GdJ3sKf6Qe2Lo`, description: 'Shown once; keep it secret.' })
  host_join_url: string;
}

export class WebinarListDto extends PageMetaDto {
  @ApiProperty({ type: [WebinarDto] }) webinars: WebinarDto[];
}

export class PublicWebinarDto {
  @ApiProperty({ example: ID }) webinar_id: string;
  @ApiProperty({ example: 'Office hours: async Rust' }) title: string;
  @ApiProperty({ enum: ['scheduled', 'live'], example: 'live' }) status: WebinarStatus;
  @ApiProperty({ example: '2026-12-01T15:00:00.000Z' }) scheduled_at: string;
  @ApiProperty({ example: 60 }) duration_minutes: number;
  @ApiProperty({ example: '2026-12-01T15:02:11.000Z', nullable: true, type: String }) started_at: string | null;
  @ApiProperty({ example: `${BASE}/live/join?wbn=${ID}` }) attendee_join_url: string;
  @ApiProperty({ example: `${BASE}/live/embed/${ID}` }) embed_url: string;
}

export class PublicWebinarListDto extends PageMetaDto {
  @ApiProperty({ type: [PublicWebinarDto] }) webinars: PublicWebinarDto[];
}

export class EndedWebinarDto {
  @ApiProperty({ example: ID }) webinar_id: string;
  @ApiProperty({ enum: ['ended'], example: 'ended' }) status: 'ended';
  @ApiProperty({ example: '2026-12-01T15:02:11.000Z' }) started_at: string;
  @ApiProperty({ example: '2026-12-01T16:01:40.000Z' }) ended_at: string;
  @ApiProperty({ example: 59, description: 'Actual minutes between start and end, rounded.' }) duration_minutes: number;
  @ApiProperty({ example: 42, description: 'Distinct attendees who joined.' }) attendance_count: number;
}
