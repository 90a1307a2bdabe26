import type { Job } from 'bullmq';
import type { AppConfig } from '../../src/config/config';
import type { MetricsService } from '../../src/metrics/metrics.service';
import type { SecretBox } from '../../src/webhooks/secret-box';
import type { DeliverWebhookData, WebhookQueue } from '../../src/webhooks/webhook-queue';
import type { AttemptClaims } from '../../src/webhooks/worker/attempt-claims';
import { DeliverWebhookJob } from '../../src/webhooks/worker/deliver-webhook.job';
import type { AttemptRecord, DeliveryRow, DeliveryStore } from '../../src/webhooks/worker/delivery-store';
import type { SendResult, WebhookSender } from '../../src/webhooks/worker/webhook-sender';

const delays = [60_000, 300_000];

function row(id: string, overrides: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id,
    body: `{"webhook_id":"${id}"}`,
    event_type: 'user.registered',
    status: 'pending',
    attempts: 0,
    retry_base: 0,
    next_attempt_at: null,
    subscription_id: 'whk_1',
    url: `http://receiver.test/${id}`,
    secret_encrypted: 'sealed',
    secret_previous_encrypted: null,
    subscription_status: 'active',
    ...overrides,
  };
}

/**
 * The job over stubs: each delivery's row, what the receiver answers each URL, the deliveries another attempt holds,
 * and every record, retry enqueued and claim freed.
 */
function setUp(rows: DeliveryRow[], answers: Record<string, number>, heldElsewhere: string[] = []) {
  const freed: string[] = [];
  const claims = {
    claim: (id: string) => Promise.resolve(!heldElsewhere.includes(id)),
    free: (id: string) => {
      freed.push(id);
      return Promise.resolve();
    },
  } as unknown as AttemptClaims;
  const records: AttemptRecord[] = [];
  const retries: Array<{ deliveryId: string; delayMs: number }> = [];
  const sent: string[] = [];
  const store = {
    load: (id: string) => Promise.resolve(rows.find((r) => r.id === id)),
    record: (r: AttemptRecord) => {
      records.push(r);
      return Promise.resolve();
    },
  } as unknown as DeliveryStore;
  const sender = {
    send: (url: string): Promise<SendResult> => {
      sent.push(url);
      return Promise.resolve({ statusCode: answers[url], durationMs: 1, error: answers[url] < 300 ? null : `HTTP ${answers[url]}`, responseBody: '' });
    },
  } as unknown as WebhookSender;
  const queue = {
    enqueueRetries: (r: typeof retries) => {
      retries.push(...r);
      return Promise.resolve();
    },
  } as unknown as WebhookQueue;
  const config = { webhook: { retryDelaysMs: delays } } as unknown as AppConfig;
  const secrets = { open: () => 'secret' } as unknown as SecretBox;
  const metrics = { recordDelivery: () => undefined } as unknown as MetricsService;
  const job = new DeliverWebhookJob(config, secrets, sender, store, metrics, queue, claims);
  return { job, records, retries, sent, freed };
}

const jobOf = (data: DeliverWebhookData, id = 'shared') => ({ id, data }) as unknown as Job<DeliverWebhookData>;

describe('DeliverWebhookJob, a fan-out’s first attempts in one job', () => {
  it('attempts every delivery, records each, and gives only the failed one a job of its own for its retry', async () => {
    const rows = [row('whd_ok'), row('whd_fails'), row('whd_settled', { status: 'delivered' })];
    const { job, records, retries, sent, freed } = setUp(rows, { 'http://receiver.test/whd_ok': 200, 'http://receiver.test/whd_fails': 503 });

    await job.process(jobOf({ deliveryIds: ['whd_ok', 'whd_fails', 'whd_settled'] }));

    expect(sent.sort()).toEqual(['http://receiver.test/whd_fails', 'http://receiver.test/whd_ok']);
    expect(records.map((r) => [r.deliveryId, r.status]).sort()).toEqual([
      ['whd_fails', 'pending'],
      ['whd_ok', 'delivered'],
    ]);
    expect(retries).toHaveLength(1);
    expect(retries[0].deliveryId).toBe('whd_fails');
    // The first retry's delay from the schedule (±10 % jitter), the same the delivery's row was given.
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(54_000);
    expect(retries[0].delayMs).toBeLessThanOrEqual(66_000);
    const recorded = records.find((r) => r.deliveryId === 'whd_fails')!;
    expect(recorded.nextAttemptAt).not.toBeNull();
    expect(freed.sort()).toEqual(['whd_fails', 'whd_ok', 'whd_settled']);
  });

  it('leaves a delivery another attempt holds to that attempt: not sent, not recorded, no retry', async () => {
    const rows = [row('whd_a'), row('whd_held')];
    const answers = { 'http://receiver.test/whd_a': 200, 'http://receiver.test/whd_held': 200 };
    const { job, records, retries, sent, freed } = setUp(rows, answers, ['whd_held']);

    await job.process(jobOf({ deliveryIds: ['whd_a', 'whd_held'] }));
    await job.process(jobOf({ deliveryId: 'whd_held' }, 'whd_held')); // the sweep's job of its own

    expect(sent).toEqual(['http://receiver.test/whd_a']);
    expect(records.map((r) => r.deliveryId)).toEqual(['whd_a']);
    expect(retries).toEqual([]);
    expect(freed).toEqual(['whd_a']); // only its own claims
  });

  it('a redelivery sends again without claiming', async () => {
    const { job, sent, freed } = setUp([row('whd_r')], { 'http://receiver.test/whd_r': 200 }, ['whd_r']);
    await job.process(jobOf({ deliveryId: 'whd_r' }, 'whd_r-rabc'));
    expect(sent).toEqual(['http://receiver.test/whd_r']);
    expect(freed).toEqual([]);
  });

  it('a delivery’s own job still fails for BullMQ’s retry, with the delay written to the row', async () => {
    const { job, retries } = setUp([row('whd_fails')], { 'http://receiver.test/whd_fails': 500 });
    await expect(job.process(jobOf({ deliveryId: 'whd_fails' }, 'whd_fails'))).rejects.toMatchObject({ message: 'HTTP 500' });
    expect(retries).toEqual([]);
  });
});
