/**
 * Every domain event and its payload. The public part (PublicEventMap) is exactly the nine webhook
 * event types partners receive, with their payloads, so a wrong payload does not compile.
 * Adding an event is one entry here plus a `tx.record(...)` call where it happens.
 */
export interface PublicEventMap {
  'user.registered': {
    user_id: number;
    external_user_id: string;
    name: string;
    email: string;
    registered_at: string;
  };
  'course.enrolled': {
    enrollment_id: number;
    user_id: number;
    external_user_id: string;
    course_id: number;
    course_title: string;
    credits_deducted: number;
    enrolled_at: string;
  };
  'course.progress': {
    enrollment_id: number;
    user_id: number;
    external_user_id: string;
    course_id: number;
    topic_id: number;
    topic_title: string;
    progress_percent: number;
    completed_topics: number;
    total_topics: number;
  };
  'course.completed': {
    user_id: number;
    user_name: string;
    user_email: string;
    external_user_id: string;
    course_id: number;
    course_title: string;
    completed_at: string;
    certificate_id: string;
  };
  'certificate.issued': {
    certificate_id: string;
    user_id: number;
    external_user_id: string;
    course_id: number;
    course_title: string;
    holder_name: string;
    issued_at: string;
    download_url: string;
    verify_url: string;
  };
  'credits.purchased': {
    transaction_id: string;
    user_id: number;
    external_user_id: string;
    amount: number;
    payment_reference: string | null;
    source: string | null;
    credits: number;
    purchased_at: string;
  };
  'webinar.started': {
    webinar_id: string;
    title: string;
    started_at: string;
    attendee_join_url: string;
    embed_url: string;
  };
  'webinar.joined': {
    webinar_id: string;
    user_id: number;
    external_user_id: string;
    name: string;
    email: string;
    joined_at: string;
  };
  'webinar.ended': {
    webinar_id: string;
    title: string;
    started_at: string;
    ended_at: string;
    duration_minutes: number;
    attendance_count: number;
    /** Most viewers playing at once (attendees and anonymous embed viewers). */
    peak_concurrent_attendees: number;
    /** Attendees' watch time summed over their media sessions, in minutes to the hundredth. */
    total_watch_minutes: number;
  };
}

export type PublicEventType = keyof PublicEventMap;

export const PUBLIC_EVENT_TYPES: readonly PublicEventType[] = [
  'course.enrolled',
  'course.completed',
  'course.progress',
  'certificate.issued',
  'webinar.started',
  'webinar.joined',
  'webinar.ended',
  'user.registered',
  'credits.purchased',
] as const;

export function isPublicEventType(value: unknown): value is PublicEventType {
  return typeof value === 'string' && (PUBLIC_EVENT_TYPES as readonly string[]).includes(value);
}

/** A public event as stored in the outbox and published after commit. */
export interface DomainEvent<K extends PublicEventType = PublicEventType> {
  id: string;
  type: K;
  partnerId: number;
  mode: 'test' | 'live';
  payload: PublicEventMap[K];
  occurredAt: Date;
}

/** In-process name of the message published after a transaction that recorded events commits. */
export const EVENTS_COMMITTED = 'events.committed';
