import type { TestApp } from '../support/app';
import { CreatedPartner, unique } from '../support/factories';

export const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

export async function createUser(p: CreatedPartner, name = 'Ada Lovelace') {
  const ext = unique('learner');
  const res = await p.http.post('/api/users', { external_user_id: ext, name, email: `${ext}@example.com` });
  if (res.status !== 201) throw new Error(`user creation failed: ${res.text}`);
  return res.body.data as { id: number; external_user_id: string; name: string; email: string };
}

export async function createWebinar(p: CreatedPartner, body: Record<string, unknown> = {}) {
  const host = body.host_id === undefined ? await createUser(p, 'Host') : undefined;
  const res = await p.http.post('/api/webinars/create', { title: unique('Webinar'), host_id: host?.id, scheduled_at: inMinutes(60), ...body });
  if (res.status !== 201) throw new Error(`webinar creation failed: ${res.text}`);
  return res.body.data as Record<string, any> & { webinar_id: string; host_join_url: string };
}

export async function liveWebinar(p: CreatedPartner, body: Record<string, unknown> = {}) {
  const w = await createWebinar(p, body);
  const res = await p.http.post(`/api/webinars/${w.webinar_id}/start`);
  if (res.status !== 200) throw new Error(`start failed: ${res.text}`);
  return w;
}

export function hostTokenOf(w: { host_join_url: string }): string {
  return new URL(w.host_join_url).searchParams.get('t')!;
}

/** Outbox rows of one webinar's event type, oldest first. */
export async function webinarEvents(t: TestApp, webinarId: string, type: string) {
  return t.db.query(
    `SELECT partner_id, mode, type, payload, occurred_at FROM events WHERE type = $1 AND payload->>'webinar_id' = $2 ORDER BY occurred_at, created_at`,
    [type, webinarId],
  ) as Promise<Array<{ partner_id: number; mode: string; type: string; payload: Record<string, any>; occurred_at: Date }>>;
}
