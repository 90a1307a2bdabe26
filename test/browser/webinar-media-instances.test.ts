import { Browser, BrowserContext, Page } from 'playwright-core';
import { launchWithFakeMedia } from '../support/chromium';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { killAll, ServiceProcess, startApiProcess } from '../support/processes';
import { createUser, createWebinar } from '../integration/webinar.helpers';

// Two service processes and two Chromium pages encoding and decoding video on a shared 2-core machine.
jest.setTimeout(240_000);

const PUBLIC_BASE = 'http://localhost:3998';

let t: TestApp;
let p: CreatedPartner;
let browser: Browser;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  t = await startApp({ RUN_WORKER: 'false' });
  p = await createPartner(t, { plan: 'enterprise' });
  const env = { RUN_WORKER: 'false', REDIS_PREFIX: `${process.env.REDIS_PREFIX}-pages`, MEDIA_PUBLIC_IP: '127.0.0.1' };
  procs.push(...(await Promise.all([startApiProcess('pages-a', env, 90_000), startApiProcess('pages-b', env, 90_000)])));
  browser = await launchWithFakeMedia();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(procs.map((proc) => proc.stop('SIGTERM', 20_000).catch(() => proc.kill())));
  await killAll();
  await t?.close();
});

/**
 * The pages' origin behind a round-robin load balancer over the running instances: each request (page, state poll,
 * WHIP, WHEP, DELETE) goes to the next one, and a refused connection is tried on the next, as a balancer's health
 * check would.
 */
async function balance(context: BrowserContext): Promise<void> {
  let next = 0;
  const closing = (error: unknown) => context.pages().every((page) => page.isClosed()) || /disposed|has been closed/.test(String(error));
  await context.route(`${PUBLIC_BASE}/**`, async (route) => {
    const running = procs.filter((proc) => proc.running);
    for (let k = 0; k < running.length; k++) {
      const target = running[next++ % running.length].baseUrl;
      try {
        const response = await route.fetch({ url: route.request().url().replace(PUBLIC_BASE, target) });
        await route.fulfill({ response }).catch((error: unknown) => {
          if (!closing(error)) throw error;
        });
        return;
      } catch (error) {
        if (closing(error)) return;
      }
    }
    await route.abort('connectionrefused').catch(() => undefined);
  });
}

async function openPage(url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  await balance(context);
  const page = await context.newPage();
  await page.goto(url.replace(/^https?:\/\/[^/]+/, PUBLIC_BASE), { waitUntil: 'domcontentloaded' });
  return page;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Records when each video frame is presented on the stage (whichever stream feeds it). */
const countFrames = (page: Page) =>
  page.evaluate(`(() => {
    const video = document.getElementById('stage-video');
    window.frameTimes = [];
    const tick = () => { window.frameTimes.push(Date.now()); video.requestVideoFrameCallback(tick); };
    video.requestVideoFrameCallback(tick);
  })()`);
const framesAfter = (page: Page, since: number) => page.evaluate(`window.frameTimes.filter((t) => t > ${since})`) as Promise<number[]>;

describe('the pages on two instances', () => {
  it('the attendee sees the host again within 10 s of the relay owner being killed', async () => {
    const w = await createWebinar(p, { title: 'Failover' });
    const user = await createUser(p, 'Mary Jackson');
    const joinUrl = (await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: user.id })).body.data.join_url as string;

    const host = await openPage(w.host_join_url);
    await host.getByRole('button', { name: 'Turn on camera' }).click();
    await host.getByRole('button', { name: 'Go live' }).click();
    await host.locator('#media-message', { hasText: 'You are live.' }).waitFor({ timeout: 20_000 });

    const attendee = await openPage(joinUrl);
    await until('the picture', async () => (await attendee.locator('#stage-video').evaluate((v: { videoWidth: number }) => v.videoWidth)) > 0, 20_000);
    await countFrames(attendee);
    await until('frames', async () => (await framesAfter(attendee, 0)).length >= 10, 10_000);

    const [lease] = await t.db.query(`SELECT internal_url FROM media_relay_owners WHERE webinar_id = $1`, [w.webinar_id]);
    const owner = procs.find((proc) => proc.baseUrl === lease.internal_url)!;
    const survivor = procs.find((proc) => proc !== owner)!;
    await owner.kill();
    const killedAt = Date.now();

    // Frames the old relay sent can still be in the page's buffers for a moment; later ones come from the new owner.
    const fresh = killedAt + 1500;
    await until('frames from the new owner', async () => (await framesAfter(attendee, fresh)).length >= 10, 12_000);
    const recovered = (await framesAfter(attendee, fresh))[9];
    expect(recovered - killedAt).toBeLessThan(10_000);
    await host.locator('#media-message', { hasText: 'You are live.' }).waitFor({ timeout: 5000 });
    const [now] = await t.db.query(`SELECT internal_url FROM media_relay_owners WHERE webinar_id = $1`, [w.webinar_id]);
    expect(now.internal_url).toBe(survivor.baseUrl);

    await host.getByRole('button', { name: 'End webinar' }).click();
    await attendee.locator('#status[data-status="ended"]').waitFor({ timeout: 5000 });
  });
});
