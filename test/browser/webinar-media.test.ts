import { launchWithFakeMedia, screenshot, servePublicBaseFrom } from '../support/chromium';
import { Browser, Page } from 'playwright-core';
import { MediaRelay } from '../../src/media/media-relay.service';
import { startApp, TestApp } from '../support/app';
import { createPartner, CreatedPartner } from '../support/factories';
import { createUser, createWebinar } from '../integration/webinar.helpers';

// Four Chromium pages encode and decode video on the same cores as the service: generous on a loaded machine.
jest.setTimeout(240_000);

const PUBLIC_BASE = 'http://localhost:3998';
// The README's pictures of live pages (real video), refreshed with UPDATE_SCREENSHOTS=1.
const shot = (page: Page, name: string) => screenshot(page, name);

let t: TestApp;
let p: CreatedPartner;
let browser: Browser;

beforeAll(async () => {
  t = await startApp({ MEDIA_PUBLIC_IP: '127.0.0.1' });
  p = await createPartner(t, { plan: 'enterprise' });
  browser = await launchWithFakeMedia();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function openPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  await servePublicBaseFrom(context, PUBLIC_BASE, t.baseUrl);
  return context.newPage();
}

interface VideoLike {
  videoWidth: number;
  videoHeight: number;
  currentTime: number;
  srcObject: unknown;
}

const videoOf = (page: Page, id: string) =>
  page.locator(`#${id}`).evaluate((v: VideoLike) => ({ width: v.videoWidth, height: v.videoHeight, time: v.currentTime, hasStream: v.srcObject !== null }));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The picture plays: a decoded size, and currentTime advancing at least 1.5 s (within 15 s of joining). */
async function expectPlaying(page: Page): Promise<void> {
  const joined = Date.now();
  await until('a decoded picture', async () => (await videoOf(page, 'stage-video')).width > 0, 15_000);
  const start = (await videoOf(page, 'stage-video')).time;
  await until('1.5 s of playback', async () => (await videoOf(page, 'stage-video')).time - start >= 1.5, 15_000 - (Date.now() - joined));
  await expect(page.locator('#waiting').isHidden()).resolves.toBe(true);
}

/** The highest level an AnalyserNode hears on the page's received audio track within 4 s (0 = silence). */
const audioLevel = (page: Page) =>
  page.evaluate(`(async () => {
    const stream = document.getElementById('stage-video').srcObject;
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    ctx.createMediaStreamSource(new MediaStream(stream.getAudioTracks())).connect(analyser);
    const data = new Uint8Array(analyser.fftSize);
    let peak = 0;
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 100));
      analyser.getByteTimeDomainData(data);
      for (const v of data) peak = Math.max(peak, Math.abs(v - 128));
    }
    await ctx.close();
    return peak;
  })()`) as Promise<number>;

describe('live media in the pages (real Chromium, fake camera, microphone and screen)', () => {
  it('the host goes live; attendees (one 5 s late) and the embed see and hear it; screen share switches; ending closes every page', async () => {
    const w = await createWebinar(p, { title: 'Live media', is_public: true });
    const link = async (name: string) => {
      const user = await createUser(p, name);
      return (await p.http.post(`/api/webinars/${w.webinar_id}/register`, { user_id: user.id })).body.data.join_url as string;
    };
    const [firstLink, lateLink] = [await link('Ada Lovelace'), await link('Grace Hopper')];

    const host = await openPage();
    await host.goto(w.host_join_url.replace(/^https?:\/\/[^/]+/, PUBLIC_BASE), { waitUntil: 'domcontentloaded' });
    await host.getByRole('button', { name: 'Turn on camera' }).click();
    await until('the preview', async () => (await videoOf(host, 'preview')).width > 0, 10_000);
    await host.getByRole('button', { name: 'Go live' }).click();
    await host.locator('#status[data-status="live"]').waitFor();
    await host.locator('#media-message', { hasText: 'You are live.' }).waitFor();

    const first = await openPage();
    await first.goto(firstLink.replace(/^https?:\/\/[^/]+/, PUBLIC_BASE), { waitUntil: 'domcontentloaded' });
    await expectPlaying(first);
    expect(await audioLevel(first)).toBeGreaterThan(0);
    const camera = await videoOf(first, 'stage-video');
    await shot(first, 'webinar-attendee-live');

    await new Promise((r) => setTimeout(r, 5000));
    const late = await openPage();
    await late.goto(lateLink.replace(/^https?:\/\/[^/]+/, PUBLIC_BASE), { waitUntil: 'domcontentloaded' });
    await expectPlaying(late);
    expect(await audioLevel(late)).toBeGreaterThan(0);
    // Two cores run every page's decoder: the late attendee leaves (its page closes) before the embed joins.
    await late.context().close();

    const embed = await openPage();
    await embed.goto(w.embed_url.replace(/^https?:\/\/[^/]+/, PUBLIC_BASE), { waitUntil: 'domcontentloaded' });
    await expectPlaying(embed);
    await shot(embed, 'webinar-embed-live');
    await host.locator('#joined-count', { hasText: '2' }).waitFor();
    await shot(host, 'webinar-host-live');

    // Share screen: the attendees' picture changes to the (differently sized) screen, and back, without renegotiating.
    await host.getByRole('button', { name: 'Share screen' }).click();
    await host.getByRole('button', { name: 'Stop sharing' }).waitFor();
    const aspect = (v: { width: number; height: number }) => (v.width / v.height).toFixed(2);
    await until('the screen on the attendee page', async () => aspect(await videoOf(first, 'stage-video')) !== aspect(camera), 10_000);
    await shot(first, 'webinar-attendee-screen-share');
    await host.getByRole('button', { name: 'Stop sharing' }).click();
    await until('the camera again', async () => aspect(await videoOf(first, 'stage-video')) === aspect(camera), 10_000);

    await host.getByRole('button', { name: 'End webinar' }).click();
    // Every page shows the end within 2 s of the host's click, and drops the stream.
    await Promise.all([first, embed].map((page) => page.locator('#status[data-status="ended"]').waitFor({ timeout: 2000 })));
    for (const page of [first, embed]) await expect(videoOf(page, 'stage-video')).resolves.toMatchObject({ hasStream: false });
    expect(t.app.get(MediaRelay).room(w.webinar_id)).toBeUndefined();
  });
});
