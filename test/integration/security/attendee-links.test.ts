import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { startApp, TestApp } from '../../support/app';
import { createPartner, CreatedPartner } from '../../support/factories';
import { createUser, liveWebinar, webinarEvents } from '../webinar.helpers';

/**
 * Attendee links must not be derivable from a shared key: an HMAC of "<webinar id>:<user id>" under WEBHOOK_SECRET_KEY
 * would let anyone who knew that key (a development default, a compose default) join as any learner.
 */
let t: TestApp;
let p: CreatedPartner;
beforeAll(async () => {
  t = await startApp();
  p = await createPartner(t, { plan: 'enterprise' });
});
afterAll(() => t.close());

const local = (url: string) => url.replace('http://localhost:3999', '');

/** What an attacker who knows WEBHOOK_SECRET_KEY computes under the old scheme. */
function forgedToken(webinarId: string, userId: number): string {
  const key = Buffer.from(hkdfSync('sha256', t.config.webhook.secretKey, 'webinars', 'attendee-join-token', 32));
  return createHmac('sha256', key).update(`${webinarId}:${userId}`).digest('base64url');
}

describe('personal attendee links', () => {
  it('cannot be computed from WEBHOOK_SECRET_KEY: a forged link neither names the learner nor joins as them', async () => {
    const w = await liveWebinar(p);
    const victim = await createUser(p, 'Victim Learner');
    expect((await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: victim.id })).status).toBe(201);
    const token = forgedToken(w.webinar_id, victim.id);

    const page = await t.http.get(local(`${w.attendee_join_url}&a=${encodeURIComponent(token)}`), { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Victim Learner');
    expect(page.text).toContain('This personal link is not valid for this webinar');

    const attend = await t.http.post(`/live/attend/${w.webinar_id}`, undefined, { headers: { 'X-Attendee-Token': token } });
    expect(attend.status).toBe(404);
    expect(await webinarEvents(t, w.webinar_id, 'webinar.joined')).toHaveLength(0);
  });

  it('carries a random token of at least 32 characters, stored only as its SHA-256', async () => {
    const w = await liveWebinar(p);
    const a = await createUser(p);
    const res = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: a.id });
    const token = new URL(res.body.data.join_url).searchParams.get('a')!;
    expect(token).toMatch(/^[0-9A-Za-z_-]{32,}$/);
    expect(token).not.toBe(forgedToken(w.webinar_id, a.id));
    const [row] = await t.db.query(`SELECT * FROM webinar_attendees WHERE webinar_id = $1 AND user_id = $2`, [w.webinar_id, a.id]);
    expect(row.attendee_token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('is the same link when the learner is registered again or joins through the API, and it works', async () => {
    const w = await liveWebinar(p);
    const a = await createUser(p, 'Repeat Learner');
    const first = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: a.id });
    const again = await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: a.id });
    expect(again.status).toBe(200);
    expect(again.body.data.join_url).toBe(first.body.data.join_url);
    const joined = await p.http.post(`/api/webinars/${w.webinar_id}/join`, { user_id: a.id });
    expect(joined.body.data.join_url).toBe(first.body.data.join_url);

    const page = await t.http.get(local(first.body.data.join_url), { headers: { Accept: 'text/html' } });
    expect(page.text).toContain('Joining as <strong>Repeat Learner</strong>');
  });
});
