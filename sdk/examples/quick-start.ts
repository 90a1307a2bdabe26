import { PartnerApi, PartnerApiError } from '@partner-api/sdk';

const api = new PartnerApi({
  apiKey: process.env.PARTNER_API_KEY ?? '', // eck_test_… or eck_live_…
  baseUrl: process.env.PARTNER_API_URL ?? '', // the service's origin, e.g. https://partners.example.com
  timeoutMs: 10_000, // per attempt
  maxRetries: 3, // network errors, timeouts, 429 and 503 are retried safely
});

async function main(): Promise<void> {
  // Every course of the catalogue, page after page.
  let course;
  let count = 0;
  for await (const c of api.paginate('/api/courses')) {
    count++;
    if (!course && c.credit_cost <= 100) course = c;
  }
  if (!course) throw new Error('no course costs 100 credits or less');
  console.log(`${count} courses; enrolling in "${course.title}" (${course.credit_cost} credits)`);

  // The learner, by your own id: created the first time, updated after that.
  const { data: learner } = await api.users.upsertByExternalId('acme-user-1001', { name: 'Ada Lovelace', email: 'ada@example.com' });

  // A reference makes the top-up idempotent for good: the same order is never credited twice.
  const { data: topUp } = await api.credits.topUp({ user_id: learner.id, amount: 100, reference: 'acme-order-1001' });
  console.log(`balance: ${topUp.credits}`);

  try {
    const enrolment = await api.enrollments.create({ user_id: learner.id, course_id: course.id });
    console.log(`enrolled: ${enrolment.data.enrollment_id}, ${enrolment.data.credits_remaining} credits left (request ${enrolment.requestId})`);
  } catch (err) {
    if (!(err instanceof PartnerApiError) || err.code !== 'already_enrolled') throw err;
    console.log(`already enrolled: ${JSON.stringify(err.details)}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
