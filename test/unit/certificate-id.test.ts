import { newCertificateId, normalizeCertificateId } from '../../src/certificates/certificate-id';

describe('certificate ids', () => {
  it('are <prefix>-<year>-<10 Crockford base32 chars>, TST in test mode and ECK in live mode', () => {
    const on = new Date('2026-11-22T10:00:00Z');
    expect(newCertificateId('test', on)).toMatch(/^TST-2026-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(newCertificateId('live', on)).toMatch(/^ECK-2026-[0-9A-HJKMNP-TV-Z]{10}$/);
  });

  it('are random: 10,000 ids never repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newCertificateId('live', new Date())));
    expect(ids.size).toBe(10_000);
  });

  it('normalise what a person may type: lower case, I and L for 1, O for 0', () => {
    expect(normalizeCertificateId('eck-2026-7k3qx9m2pd')).toBe('ECK-2026-7K3QX9M2PD');
    expect(normalizeCertificateId('TST-2026-ILO0000000')).toBe('TST-2026-1100000000');
  });

  it.each(['', 'ECK-2026', 'ABC-2026-7K3QX9M2PD', 'ECK-26-7K3QX9M2PD', 'ECK-2026-7K3QX9M2P', 'ECK-2026-7K3QX9M2PDU', 'ECK-2026-7K3QX9M2P!', 'x'.repeat(500)])(
    'reject the malformed id %p',
    (raw) => {
      expect(normalizeCertificateId(raw)).toBeNull();
    },
  );
});
