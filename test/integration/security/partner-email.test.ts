import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startApp, TestApp } from '../../support/app';
import { unique } from '../../support/factories';

/**
 * Issue 26, finding 11: registration accepted a second partner with another partner's e-mail address and never
 * checked the address. An address now belongs to one partner (409 email_already_registered), and production access
 * needs the address verified through a link sent by SMTP, here to a real SMTP server listening on 127.0.0.1.
 */
interface Mail {
  to: string[];
  body: string;
}
let smtp: SMTPServer;
const inbox: Mail[] = [];
let t: TestApp;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), body: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await startApp({ TRUST_PROXY: '1', SMTP_URL: `smtp://127.0.0.1:${port}` });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});

let ip = 0;
const register = (email: string) =>
  t.http.post(
    '/api/partners/register',
    { name: unique('Acme'), email },
    { headers: { 'X-Forwarded-For': `198.51.${Math.floor(ip / 250)}.${(ip++ % 250) + 1}` } },
  );

/** The verification link in the mail sent to `email` (quoted-printable soft breaks and escapes undone). */
async function linkSentTo(email: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = inbox.find((m) => m.to.includes(email));
    if (mail) {
      const text = mail.body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const link = /https?:\/\/\S+\/api\/partners\/verify-email\?token=[A-Za-z0-9_-]+/.exec(text);
      if (!link) throw new Error(`no link in ${mail.body}`);
      return link[0];
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${email}`);
}

describe('partner e-mail addresses', () => {
  it('refuses a second registration with an address another partner uses (any case), 409 email_already_registered', async () => {
    const email = `${unique('owner')}@example.com`;
    expect((await register(email)).status).toBe(201);
    const again = await register(email.toUpperCase());
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('email_already_registered');
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM partners WHERE lower(email) = lower($1)`, [email]);
    expect(n).toBe(1);
  });

  it('sends a verification link by SMTP; production access needs the address verified', async () => {
    const email = `${unique('verify')}@example.com`;
    const registered = await register(email);
    expect(registered.status).toBe(201);
    const key = registered.body.data.api_key.key as string;
    const me = await t.http.get('/api/partners/me', { key });
    expect(me.body.data.email_verified).toBe(false);

    const early = await t.http.post('/api/partners/me/production-access', { use_case: 'We embed courses in our HR product.' }, { key });
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe('email_not_verified');

    const link = new URL(await linkSentTo(email));
    expect(link.origin).toBe(new URL(t.config.publicBaseUrl).origin);
    const verified = await t.http.get(link.pathname + link.search);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ email, email_verified: true });
    expect((await t.http.get('/api/partners/me', { key })).body.data.email_verified).toBe(true);

    const granted = await t.http.post('/api/partners/me/production-access', { use_case: 'We embed courses in our HR product.' }, { key });
    expect(granted.status).toBe(202);
    // A link works once.
    const reused = await t.http.get(link.pathname + link.search);
    expect(reused.status).toBe(404);
    expect(reused.body.error.code).toBe('verification_link_invalid');
  });

  it('answers 404 verification_link_invalid for a made-up token', async () => {
    const res = await t.http.get('/api/partners/verify-email?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('verification_link_invalid');
  });
});
