import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { UserSnapshot } from '../users/users.service';
import type { AttendeeSeatDto } from './dto/attendee.dto';
import type { PublicWebinarDto, WebinarDto } from './dto/webinar.dto';
import type { WebinarAttendee, Webinar } from './webinars.repository';

/** The service's own page URLs (PUBLIC_BASE_URL) and the views built from them. */
@Injectable()
export class WebinarLinks {
  private readonly base: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.publicBaseUrl;
  }

  attendeeJoinUrl(id: string): string {
    return `${this.base}/live/join?wbn=${encodeURIComponent(id)}`;
  }

  hostJoinUrl(id: string, hostToken: string): string {
    return `${this.attendeeJoinUrl(id)}&t=${encodeURIComponent(hostToken)}`;
  }

  personalJoinUrl(id: string, attendeeToken: string): string {
    return `${this.attendeeJoinUrl(id)}&a=${encodeURIComponent(attendeeToken)}`;
  }

  embedUrl(id: string): string {
    return `${this.base}/live/embed/${encodeURIComponent(id)}`;
  }

  view(w: Webinar): WebinarDto {
    return {
      webinar_id: w.id,
      title: w.title,
      status: w.status,
      scheduled_at: w.scheduledAt.toISOString(),
      duration_minutes: w.durationMinutes,
      max_attendees: w.maxAttendees,
      is_public: w.isPublic,
      host_id: w.hostUserId,
      attendee_join_url: this.attendeeJoinUrl(w.id),
      embed_url: this.embedUrl(w.id),
      attendee_count: w.seatsTaken,
      started_at: w.startedAt?.toISOString() ?? null,
      ended_at: w.endedAt?.toISOString() ?? null,
      created_at: w.createdAt.toISOString(),
    };
  }

  publicView(w: Webinar): PublicWebinarDto {
    return {
      webinar_id: w.id,
      title: w.title,
      status: w.status,
      scheduled_at: w.scheduledAt.toISOString(),
      duration_minutes: w.durationMinutes,
      started_at: w.startedAt?.toISOString() ?? null,
      attendee_join_url: this.attendeeJoinUrl(w.id),
      embed_url: this.embedUrl(w.id),
    };
  }
}

export function toAttendeeView(a: WebinarAttendee, u: UserSnapshot): AttendeeSeatDto {
  return {
    user_id: u.id,
    external_user_id: u.externalUserId,
    name: u.name,
    email: u.email,
    status: a.status,
    registered_at: a.registeredAt.toISOString(),
    joined_at: a.joinedAt?.toISOString() ?? null,
  };
}

/** Actual minutes between start and end, rounded to the nearest minute. */
export function actualMinutes(startedAt: Date, endedAt: Date): number {
  return Math.round((endedAt.getTime() - startedAt.getTime()) / 60_000);
}
