import { startApp, TestApp } from '../../support/app';

/**
 * Issue 26, finding 10: the guide called X-SVC-Signature and the Standard Webhooks signature "two equivalent ways",
 * but X-SVC-Signature covers the body only, with no timestamp: a captured delivery replays for ever to a receiver that
 * checks only it. The served guide, the receivers' page and the OpenAPI document must say so and recommend the
 * Standard Webhooks headers.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

/** The page's text, tags dropped, whitespace collapsed. */
async function text(path: string): Promise<string> {
  const html = await (await fetch(`${t.baseUrl}${path}`)).text();
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

describe('what the docs say about X-SVC-Signature', () => {
  it.each(['/docs/guide', '/docs/guide/webhooks'])('%s never calls the two signatures equivalent, and says what X-SVC-Signature lacks', async (path) => {
    const page = await text(path);
    expect(page).not.toMatch(/equivalent/i);
    expect(page).not.toMatch(/check either/i);
    expect(page).toMatch(/X-SVC-Signature[^.]*covers the raw body only/);
    expect(page).toMatch(/no timestamp[^.]*replay/i);
    expect(page).toMatch(/Standard Webhooks[^.]*\(recommended\)/);
  });

  it('the OpenAPI document describes the header exactly and points to webhook-signature', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/docs/openapi.json`)).json()) as {
      webhooks: Record<string, { post: { parameters?: Array<{ name: string; description: string }> } }>;
    };
    for (const [event, item] of Object.entries(doc.webhooks)) {
      const header = item.post.parameters?.find((p) => p.name === 'X-SVC-Signature');
      expect({ event, description: header?.description }).toEqual({
        event,
        description: expect.stringMatching(/raw body only[^.]*\..*no timestamp.*replay.*webhook-signature/s),
      });
    }
  });
});
