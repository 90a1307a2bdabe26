import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { PUBLIC_EVENT_TYPES } from '../../src/events/event-map';
import { EVENT_DATA, webhookSection } from '../../src/openapi/webhooks';
import { SAMPLE_PAYLOADS } from '../support/webhook-events';

describe('the webhooks section of the OpenAPI document', () => {
  const { webhooks, schemas } = webhookSection();

  it('has exactly the nine public events, each with the fields the code sends', () => {
    expect(Object.keys(webhooks).sort()).toEqual([...PUBLIC_EVENT_TYPES].sort());
    for (const type of PUBLIC_EVENT_TYPES) {
      expect({ type, fields: Object.keys(EVENT_DATA[type].properties).sort() }).toEqual({ type, fields: Object.keys(SAMPLE_PAYLOADS[type]).sort() });
    }
  });

  it('documents the Standard Webhooks and X-SVC signature headers on every event', () => {
    for (const [type, item] of Object.entries<any>(webhooks)) {
      const names = item.post.parameters.map((p: { name: string }) => p.name);
      expect({ type, names }).toEqual({
        type,
        names: expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-SVC-Signature', 'X-SVC-Signature-Previous']),
      });
    }
  });

  it('describes envelopes that a payload of each event validates against (types and formats)', () => {
    const ajv = new Ajv({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: { schemas } });
    for (const type of PUBLIC_EVENT_TYPES) {
      const base = type.replace(/(^|[._])(\w)/g, (_m, _s, c: string) => c.toUpperCase());
      const envelope = JSON.parse(JSON.stringify(schemas[`${base}Event`]).replace(/#\/components\/schemas\//g, 'doc#/components/schemas/'));
      const validate = ajv.compile(envelope);
      // The fixture's top-up amount has a fraction; real amounts are whole credits (the top-up body is an integer).
      const data = { ...SAMPLE_PAYLOADS[type], ...(type === 'credits.purchased' ? { amount: 50 } : {}) };
      const body = { event: type, timestamp: '2026-11-22T10:00:00.000Z', webhook_id: 'whd_1', data };
      expect({ type, valid: validate(body), errors: validate.errors ?? null }).toEqual({ type, valid: true, errors: null });
      expect(validate({ ...body, data: { ...data, extra: 1 } })).toBe(false);
    }
  });
});
