import type { PublicEventType } from '../events/event-map';

type Schema = Record<string, unknown>;

const int = (example: number, description?: string): Schema => ({ type: 'integer', minimum: 1, example, ...(description ? { description } : {}) });
const str = (example: string, description?: string): Schema => ({ type: 'string', example, ...(description ? { description } : {}) });
const time = (example: string, description?: string): Schema => ({ type: 'string', format: 'date-time', example, ...(description ? { description } : {}) });
const url = (example: string, description?: string): Schema => ({ type: 'string', format: 'uri', example, ...(description ? { description } : {}) });
const email = (example: string): Schema => ({ type: 'string', format: 'email', example });

const USER = { user_id: int(501, 'Platform user id.'), external_user_id: str('acme-user-1001', 'Your own reference for the learner.') };

/** The `data` of each of the nine events, exactly as `src/events/event-map.ts` types them (a test checks both agree). */
export const EVENT_DATA: Record<PublicEventType, { summary: string; description: string; properties: Record<string, Schema> }> = {
  'user.registered': {
    summary: 'A learner was created',
    description: 'Sent when a learner is created with POST /api/users or PUT /api/users/external/{external_user_id}.',
    properties: { ...USER, name: str('Ada Lovelace'), email: email('ada@example.com'), registered_at: time('2026-11-22T10:00:00.000Z') },
  },
  'course.enrolled': {
    summary: 'A learner was enrolled in a course',
    description: 'Sent for every enrolment, by POST /api/enroll or a row of a bulk enrolment job, once the credits are deducted.',
    properties: {
      enrollment_id: int(9001),
      ...USER,
      course_id: int(42),
      course_title: str('Introduction to Python'),
      credits_deducted: { type: 'integer', minimum: 0, example: 25 },
      enrolled_at: time('2026-11-22T10:00:00.000Z'),
    },
  },
  'course.progress': {
    summary: 'A learner completed a topic',
    description: 'Sent when POST /api/enrollments/{id}/progress records a topic the learner had not completed before.',
    properties: {
      enrollment_id: int(9001),
      ...USER,
      course_id: int(42),
      topic_id: int(77),
      topic_title: str('Variables and types'),
      progress_percent: { type: 'integer', minimum: 0, maximum: 100, example: 33, description: 'round(100 × completed_topics / total_topics)' },
      completed_topics: { type: 'integer', minimum: 0, example: 1 },
      total_topics: { type: 'integer', minimum: 0, example: 3 },
    },
  },
  'course.completed': {
    summary: 'A learner completed a course',
    description: 'Sent when the last topic is completed; the certificate is issued at the same moment.',
    properties: {
      user_id: USER.user_id,
      user_name: str('Ada Lovelace'),
      user_email: email('ada@example.com'),
      external_user_id: USER.external_user_id,
      course_id: int(42),
      course_title: str('Introduction to Python'),
      completed_at: time('2026-11-22T10:00:00.000Z'),
      certificate_id: str('TST-7KQ2-M9XD', 'The certificate issued for this completion.'),
    },
  },
  'certificate.issued': {
    summary: 'A certificate was issued',
    description: 'Sent when a certificate is issued, on completion or by POST /api/certificates/issue.',
    properties: {
      certificate_id: str('TST-7KQ2-M9XD'),
      ...USER,
      course_id: int(42),
      course_title: str('Introduction to Python'),
      holder_name: str('Ada Lovelace'),
      issued_at: time('2026-11-22T10:00:00.000Z'),
      download_url: url('https://api.example.com/verify/TST-7KQ2-M9XD/pdf', 'The certificate as a PDF (no key needed).'),
      verify_url: url('https://api.example.com/verify/TST-7KQ2-M9XD', 'The public verification page.'),
    },
  },
  'credits.purchased': {
    summary: 'Credits were added to a learner',
    description: 'Sent for every top-up (POST /api/credits/topup), never twice for one reference.',
    properties: {
      transaction_id: str('txn_4Fh8Qk2LmN7pR1sT'),
      ...USER,
      amount: { type: 'integer', minimum: 1, example: 100, description: 'Credits added by this top-up.' },
      payment_reference: { type: ['string', 'null'], example: 'pi_3PqR7s2eZvKYlo2C1', description: "The top-up's `reference`." },
      source: { type: ['string', 'null'], example: 'stripe', description: "The top-up's `source`." },
      credits: { type: 'integer', minimum: 0, example: 140, description: "The learner's balance after the top-up." },
      purchased_at: time('2026-11-22T10:00:00.000Z'),
    },
  },
  'webinar.started': {
    summary: 'A webinar went live',
    description: 'Sent by POST /api/webinars/{id}/start.',
    properties: {
      webinar_id: str('wbn_3Jd8Kq1LmZ'),
      title: str('Live Q&A: Python for data analysis'),
      started_at: time('2026-12-01T15:00:00.000Z'),
      attendee_join_url: url('https://api.example.com/live/wbn_3Jd8Kq1LmZ'),
      embed_url: url('https://api.example.com/live/wbn_3Jd8Kq1LmZ/embed'),
    },
  },
  'webinar.joined': {
    summary: 'A learner joined a live webinar',
    description:
      'Sent once per learner and webinar, on their first join: through POST /api/webinars/{id}/join, their personal link, or the first media connection of the attendee page (WHEP). Later joins and reconnects send nothing.',
    properties: {
      webinar_id: str('wbn_3Jd8Kq1LmZ'),
      ...USER,
      name: str('Ada Lovelace'),
      email: email('ada@example.com'),
      joined_at: time('2026-12-01T15:03:00.000Z'),
    },
  },
  'webinar.ended': {
    summary: 'A webinar ended',
    description: 'Sent when a webinar ends (POST /api/webinars/{id}/end or the host page). Media sessions still open are closed at that moment.',
    properties: {
      webinar_id: str('wbn_3Jd8Kq1LmZ'),
      title: str('Live Q&A: Python for data analysis'),
      started_at: time('2026-12-01T15:00:00.000Z'),
      ended_at: time('2026-12-01T16:00:00.000Z'),
      duration_minutes: { type: 'integer', minimum: 0, example: 60 },
      attendance_count: { type: 'integer', minimum: 0, example: 42 },
      peak_concurrent_attendees: {
        type: 'integer',
        minimum: 0,
        example: 37,
        description:
          'Most viewers playing the webinar at once, measured from their media sessions (an attendee with two tabs counts once; anonymous embed viewers count).',
      },
      total_watch_minutes: {
        type: 'number',
        minimum: 0,
        example: 1843.25,
        description: "Attendees' time connected to the webinar's media, summed over every session, in minutes to the hundredth.",
      },
    },
  },
};

const SIGNATURE_HEADERS: Array<Record<string, unknown>> = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: the delivery id, equal to `webhook_id` in the body and to `X-SVC-Delivery`; the same on every retry and redelivery. Use it to drop duplicates.',
    schema: { type: 'string', example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: Unix seconds when this attempt was signed. Refuse deliveries more than 5 minutes away from your clock (replays).',
    schema: { type: 'string', pattern: '^[0-9]+$', example: '1795428000' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      "Standard Webhooks: `v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with your secret's UTF-8 bytes (any Standard Webhooks library verifies it when given `whsec_` + base64(secret)). While a rotated secret's previous one is still valid, two signatures separated by a space: `v1,<new> v1,<previous>`; accept either.",
    schema: { type: 'string', example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
  },
  {
    name: 'X-SVC-Signature',
    in: 'header',
    required: true,
    description:
      '`sha256=` + lowercase hex HMAC-SHA256 of the raw body only, keyed with your (current) secret. It has no timestamp, so it gives no replay protection: a captured delivery verifies for ever. Prefer `webhook-signature`; if you check only this header, drop `webhook_id`s you have already processed.',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$', example: 'sha256=5d1c0b7f8f0e2a4c9b3d6e1f7a2c4e8b0d9f1a3c5e7b9d2f4a6c8e0b1d3f5a7c' },
  },
  {
    name: 'X-SVC-Signature-Previous',
    in: 'header',
    required: false,
    description: "Only while a rotated secret's previous one is still valid: the same signature made with the previous secret.",
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$', example: 'sha256=0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9' },
  },
  { name: 'X-SVC-Event', in: 'header', required: true, description: 'The event type, as in `event`.', schema: { type: 'string', example: 'course.enrolled' } },
  {
    name: 'X-SVC-Delivery',
    in: 'header',
    required: true,
    description: 'The delivery id, as in `webhook_id`.',
    schema: { type: 'string', example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA' },
  },
];

const DELIVERY_DESCRIPTION =
  'Answer any 2xx within the delivery timeout (10 s by default) to acknowledge. Anything else (another status, a timeout, a refused connection) is retried with the same bytes and the same `webhook_id`: 8 attempts over about a day, honouring a `Retry-After` you send; then the delivery is `failed` (redeliver it with POST /api/connect/webhooks/{id}/deliveries/{webhook_id}/redeliver). A 410 Gone disables the subscription at once. Delivery statuses: `pending`, `delivered`, `failed`, and `skipped` (the event matched a disabled subscription and was not sent). Verify the signature over the raw body before parsing it; order is not guaranteed.';

/** The top-level `webhooks` section of the OpenAPI 3.1 document and the schemas it refers to. */
export function webhookSection(): { webhooks: Record<string, unknown>; schemas: Record<string, Schema> } {
  const schemas: Record<string, Schema> = {};
  const webhooks: Record<string, unknown> = {};
  for (const [type, event] of Object.entries(EVENT_DATA) as Array<[PublicEventType, (typeof EVENT_DATA)[PublicEventType]]>) {
    const base = type.replace(/(^|[._])(\w)/g, (_m, _s, c: string) => c.toUpperCase());
    const dataName = `${base}Data`;
    const envelopeName = `${base}Event`;
    schemas[dataName] = { type: 'object', required: Object.keys(event.properties), additionalProperties: false, properties: event.properties };
    schemas[envelopeName] = {
      type: 'object',
      description: `The body of a \`${type}\` delivery.`,
      required: ['event', 'timestamp', 'webhook_id', 'data'],
      additionalProperties: false,
      properties: {
        event: { type: 'string', enum: [type], example: type },
        timestamp: { type: 'string', format: 'date-time', example: '2026-11-22T10:00:00.000Z', description: 'When the event happened (not when it was sent).' },
        webhook_id: {
          type: 'string',
          example: 'whd_8KfL2mQ9rS4tU7vW1xY3zA',
          description: 'This event for this subscription; the same on every retry and redelivery.',
        },
        data: { $ref: `#/components/schemas/${dataName}` },
      },
    };
    webhooks[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: event.summary,
        description: `${event.description} ${DELIVERY_DESCRIPTION}`,
        tags: ['Webhooks'],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${envelopeName}` } } } },
        responses: {
          '200': { description: 'Acknowledged (any 2xx is).' },
          '410': { description: 'Gone: the subscription is disabled at once and nothing more is sent to it.' },
        },
      },
    };
  }
  return { webhooks, schemas };
}
