import { ApiProperty } from '@nestjs/swagger';
import { PageQuery, PageMetaDto } from '../../common/pagination';

const ID = 'wbn_4fJ9kQ2xT7mN1pR8sV3wYz';

/** A seat: who registered and when they first joined. */
export class AttendeeSeatDto {
  @ApiProperty({ example: 501 }) user_id: number;
  @ApiProperty({ example: 'acme-user-1001' }) external_user_id: string;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ enum: ['registered', 'joined'], example: 'joined' }) status: 'registered' | 'joined';
  @ApiProperty({ example: '2026-11-30T09:00:00.000Z' }) registered_at: string;
  @ApiProperty({ example: '2026-12-01T15:03:00.000Z', nullable: true, type: String, description: 'First time the attendee joined.' }) joined_at: string | null;
}

/** A row of the attendees list: the seat plus the attendee's measured presence. */
export class AttendeeDto extends AttendeeSeatDto {
  @ApiProperty({
    example: 2712,
    minimum: 0,
    description:
      "Seconds the attendee's media sessions (the attendee page or any WHEP player with their token) were connected: closed sessions plus an open one up to now.",
  })
  watched_seconds: number;

  @ApiProperty({ example: true, description: 'Whether the attendee has a media session connected now.' })
  connected: boolean;
}

/** register / join result: the attendee plus their personal join link. */
export class AttendanceDto extends AttendeeSeatDto {
  @ApiProperty({ example: ID }) webinar_id: string;
  @ApiProperty({
    example: `https://api.example.com/live/join?wbn=${ID}&a=q1WmZ8rT4yU6iO0pA3sD5fG7hJ9kL2xC4vB6nM8qW0e`,
    format: 'uri',
    description: "The attendee's personal link; opening it while live records the join.",
  })
  join_url: string;
}

export class AttendeeListDto extends PageMetaDto {
  @ApiProperty({ example: ID }) webinar_id: string;
  @ApiProperty({ type: [AttendeeDto] }) attendees: AttendeeDto[];
}

export class ListAttendeesQuery extends PageQuery {}
