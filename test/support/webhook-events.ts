import type { Scope } from '../../src/common/scope';
import type { PublicEventMap, PublicEventType } from '../../src/events/event-map';
import { TransactionRunner } from '../../src/events/transaction-runner';
import type { TestApp } from './app';
import type { CreatedPartner } from './factories';

/** One valid payload per public event type (contract section 11), for recording events before the features exist. */
export const SAMPLE_PAYLOADS: { [K in PublicEventType]: PublicEventMap[K] } = {
  'user.registered': { user_id: 7, external_user_id: 'ext-7', name: 'Ada Lovelace', email: 'ada@example.com', registered_at: '2025-11-22T10:00:00.000Z' },
  'course.enrolled': {
    enrollment_id: 3,
    user_id: 7,
    external_user_id: 'ext-7',
    course_id: 12,
    course_title: 'Intro to Ñandú ✓',
    credits_deducted: 10,
    enrolled_at: '2025-11-22T10:00:00.000Z',
  },
  'course.progress': {
    enrollment_id: 3,
    user_id: 7,
    external_user_id: 'ext-7',
    course_id: 12,
    topic_id: 40,
    topic_title: 'Topic 1',
    progress_percent: 33,
    completed_topics: 1,
    total_topics: 3,
  },
  'course.completed': {
    user_id: 7,
    user_name: 'Ada Lovelace',
    user_email: 'ada@example.com',
    external_user_id: 'ext-7',
    course_id: 12,
    course_title: 'Intro',
    completed_at: '2025-11-22T10:00:00.000Z',
    certificate_id: 'TST-ABCD-1234',
  },
  'certificate.issued': {
    certificate_id: 'TST-ABCD-1234',
    user_id: 7,
    external_user_id: 'ext-7',
    course_id: 12,
    course_title: 'Intro',
    holder_name: 'Ada Lovelace',
    issued_at: '2025-11-22T10:00:00.000Z',
    download_url: 'http://localhost:3999/static/c.pdf',
    verify_url: 'http://localhost:3999/verify/TST-ABCD-1234',
  },
  'credits.purchased': {
    transaction_id: 'txn_abc',
    user_id: 7,
    external_user_id: 'ext-7',
    amount: 49.5,
    payment_reference: 'pay-1',
    source: 'stripe',
    credits: 100,
    purchased_at: '2025-11-22T10:00:00.000Z',
  },
  'webinar.started': {
    webinar_id: 'wbn_abc',
    title: 'Live Q&A',
    started_at: '2025-11-22T10:00:00.000Z',
    attendee_join_url: 'http://localhost:3999/live/wbn_abc',
    embed_url: 'http://localhost:3999/live/wbn_abc/embed',
  },
  'webinar.joined': {
    webinar_id: 'wbn_abc',
    user_id: 7,
    external_user_id: 'ext-7',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    joined_at: '2025-11-22T10:00:00.000Z',
  },
  'webinar.ended': {
    webinar_id: 'wbn_abc',
    title: 'Live Q&A',
    started_at: '2025-11-22T10:00:00.000Z',
    ended_at: '2025-11-22T11:00:00.000Z',
    duration_minutes: 60,
    attendance_count: 4,
    peak_concurrent_attendees: 3,
    total_watch_minutes: 152.5,
  },
};

export function scopeOf(p: CreatedPartner): Scope {
  return { partnerId: p.partnerId, mode: p.mode };
}

/** Records events through the real outbox path (TransactionRunner → commit → EVENTS_COMMITTED). */
export async function recordEvents(t: TestApp, scope: Scope, ...types: PublicEventType[]) {
  return t.app.get(TransactionRunner).run(async (tx) => {
    const out = [];
    for (const type of types) out.push(await tx.record(scope, type, SAMPLE_PAYLOADS[type] as never));
    return out;
  });
}

/** Writes an event to the outbox without publishing it, as if the process died right after the commit. */
export async function insertUnpublishedEvent(t: TestApp, scope: Scope, type: PublicEventType, id: string): Promise<void> {
  await t.db.query(
    `WITH e AS (
       INSERT INTO events (id, partner_id, mode, type, payload, occurred_at, created_at) VALUES ($1, $2, $3, $4, $5, now(), now() - interval '5 seconds')
       RETURNING id, created_at)
     INSERT INTO events_undispatched (event_id, created_at) SELECT id, created_at FROM e`,
    [id, scope.partnerId, scope.mode, type, JSON.stringify(SAMPLE_PAYLOADS[type])],
  );
}

/** Whether the event is recorded and dispatched: fanned out to webhooks, so no longer waiting in `events_undispatched`. */
export async function isDispatched(t: TestApp, eventId: string): Promise<boolean> {
  const [{ dispatched }] = (await t.db.query(
    `SELECT EXISTS (SELECT 1 FROM events WHERE id = $1) AND NOT EXISTS (SELECT 1 FROM events_undispatched WHERE event_id = $1) AS dispatched`,
    [eventId],
  )) as Array<{ dispatched: boolean }>;
  return dispatched === true;
}
