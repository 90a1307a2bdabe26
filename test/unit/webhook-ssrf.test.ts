import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config';
import { isForbiddenAddress, resolveSafely } from '../../src/webhooks/ssrf-guard';
import { WebhookSender } from '../../src/webhooks/worker/webhook-sender';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '[::1]',
    'not-an-ip',
  ])('refuses %s', (ip) => expect(isForbiddenAddress(ip)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('allows the public %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe('resolveSafely', () => {
  it('refuses a host name that resolves to loopback', async () => {
    await expect(resolveSafely('localhost')).rejects.toThrow(/is not a public address/);
  });
});

describe('WebhookSender connect-time guard', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const sender = (allow: boolean) =>
    new WebhookSender(loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allow), WEBHOOK_TIMEOUT_MS: '2000' }));

  it.each(['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]'])('never connects to %s when private targets are refused', async (host) => {
    const s = sender(false);
    const before = hits;
    const result = await s.send(`http://${host}:${port}/hook`, '{}', { 'content-type': 'application/json' });
    await s.onApplicationShutdown();
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/Refused target/);
    expect(hits).toBe(before);
  });

  it('says why a connection failed without naming the address it reached', async () => {
    // A port nothing listens on: the socket error names the resolved address and port, which a partner must not see.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const s = sender(true);
    const result = await s.send(`http://localhost:${closedPort}/hook`, '{}', { 'content-type': 'application/json' });
    await s.onApplicationShutdown();
    expect(result).toMatchObject({ statusCode: null, error: 'Connection refused' });
  });

  it('connects when private targets are allowed', async () => {
    const s = sender(true);
    const result = await s.send(`http://localhost:${port}/hook`, '{}', { 'content-type': 'application/json' });
    await s.onApplicationShutdown();
    expect(result).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
  });
});
