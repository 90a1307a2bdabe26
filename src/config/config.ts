import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { createPrivateKey, KeyObject } from 'node:crypto';
import { URL } from 'node:url';
import type { AppConfig, Ed25519PrivateJwk, TrustProxy } from './app-config';
import { DEV_WEBHOOK_SECRET_KEY, developmentDefaults, KNOWN_DEFAULT_SECRETS } from './development-defaults';

// Types live in app-config.ts (development-defaults.ts reads them too); re-exported for the callers.
export type { AppConfig, Ed25519PrivateJwk, TrustProxy } from './app-config';

export class ConfigError extends Error {}

// Public halves of private keys that are published and so protect nothing: RFC 8037's example key (Appendix A.1).
const PUBLISHED_SIGNING_KEYS = new Set(['11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo']);

const SIGNING_KEY_FORMAT =
  'an Ed25519 private key, either a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----…", line breaks may be written as \\n) or a JWK ({"kty":"OKP","crv":"Ed25519","d":"…","x":"…"}); generate one with `openssl genpkey -algorithm ed25519`';

/** Reads CREDENTIAL_SIGNING_KEY: required in production, and never a published example key there. */
export function credentialSigningKey(env: Env, production: boolean): Ed25519PrivateJwk | null {
  const raw = env.CREDENTIAL_SIGNING_KEY?.trim();
  if (!raw) {
    if (production) throw new ConfigError(`CREDENTIAL_SIGNING_KEY is required in production: ${SIGNING_KEY_FORMAT}`);
    return null;
  }
  let key: KeyObject;
  try {
    key = raw.startsWith('{') ? createPrivateKey({ key: JSON.parse(raw) as never, format: 'jwk' }) : createPrivateKey(raw.replace(/\\n/g, '\n'));
  } catch {
    throw new ConfigError(`CREDENTIAL_SIGNING_KEY must be ${SIGNING_KEY_FORMAT}`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new ConfigError(`CREDENTIAL_SIGNING_KEY must be ${SIGNING_KEY_FORMAT}; got a ${key.asymmetricKeyType ?? 'symmetric'} key`);
  const { x, d } = key.export({ format: 'jwk' });
  if (production && PUBLISHED_SIGNING_KEYS.has(x!))
    throw new ConfigError('CREDENTIAL_SIGNING_KEY is a published example key; generate your own with `openssl genpkey -algorithm ed25519`');
  return { kty: 'OKP', crv: 'Ed25519', x: x!, d: d! };
}

type Env = Record<string, string | undefined>;

const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000];

function str(env: Env, name: string, fallback?: string): string {
  const v = env[name];
  if (v === undefined || v === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required`);
    return fallback;
  }
  return v;
}

/** A secret of at least 32 characters: a development default outside production, in production set and never a known default. */
function secret(env: Env, name: string, production: boolean, devDefault: string): string {
  const value = str(env, name, production ? undefined : devDefault);
  if (value.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
  if (production && KNOWN_DEFAULT_SECRETS.includes(value)) {
    throw new ConfigError(`${name} is a known default published with the code; set a random secret of at least 32 characters`);
  }
  if (production) refuseWeak(name, value);
  return value;
}

/** METRICS_TOKEN: optional; in production at least 32 characters and random, like the other secrets. */
function metricsToken(env: Env, production: boolean): string | undefined {
  const value = env.METRICS_TOKEN || undefined;
  if (!value || !production) return value;
  if (value.length < 32) throw new ConfigError('METRICS_TOKEN must be at least 32 characters in production (`openssl rand -hex 32`)');
  refuseWeak('METRICS_TOKEN', value);
  return value;
}

/**
 * Refuses a value that is long but not random: 32 × `a`, 64 × `0`, a short pattern repeated. The thresholds (8
 * distinct characters, 80 bits by the value's own character frequencies, no repeated unit) refuse those and never a
 * random one: of a million `openssl rand -hex 16` values, the weakest had well over both.
 */
function refuseWeak(name: string, value: string): void {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= n * Math.log2(n / value.length);
  const repeated = Array.from({ length: Math.floor(value.length / 2) }, (_, i) => i + 1).some((p) => value.slice(p) === value.slice(0, -p));
  if (counts.size < 8 || bits < 80 || repeated) {
    throw new ConfigError(
      `${name} is not random enough (too few distinct characters, low entropy or a repeated pattern); generate one with \`openssl rand -hex 32\``,
    );
  }
}

/**
 * PUBLIC_BASE_URL: in production it must be https (links, verification pages and the dashboard's Origin check all
 * derive from it), unless ALLOW_HTTP_PUBLIC_BASE_URL says TLS is handled outside what this URL shows. A loopback
 * host (a local try-out of the production image) never crosses a network.
 */
function publicBaseUrl(env: Env, production: boolean, port: number): string {
  const value = url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(/\/+$/, '');
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(new URL(value).hostname);
  if (production && value.startsWith('http:') && !loopback && !bool(env, 'ALLOW_HTTP_PUBLIC_BASE_URL', false)) {
    throw new ConfigError(
      `PUBLIC_BASE_URL must use https in production, got "${value}"; if TLS ends at a proxy that serves this very URL, set ALLOW_HTTP_PUBLIC_BASE_URL=true`,
    );
  }
  return value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * TRUST_PROXY: a hop count, or a comma-separated list of proxy addresses/CIDRs (or proxy-addr's names loopback,
 * linklocal, uniquelocal). `true` is refused: trusting every hop lets a client choose its address by sending X-Forwarded-For.
 */
function trustProxy(env: Env): TrustProxy {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || /^(false|no|0)$/i.test(raw)) return false;
  if (/^(true|yes)$/i.test(raw)) {
    throw new ConfigError(
      'TRUST_PROXY=true would trust every hop, so clients could choose their address; set the number of proxies in front of the service (e.g. 1) or their addresses/CIDRs',
    );
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError(`TRUST_PROXY must be a hop count between 0 and 10, got ${hops}`);
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (!isProxyAddress(entry)) throw new ConfigError(`TRUST_PROXY must be a hop count or proxy addresses/CIDRs, got "${entry}"`);
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string {
  const raw = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function mediaPublicIp(env: Env): string | undefined {
  const raw = env.MEDIA_PUBLIC_IP?.trim();
  if (!raw) return undefined;
  if (isIP(raw) !== 4) throw new ConfigError(`MEDIA_PUBLIC_IP must be an IPv4 address, got "${raw}"`);
  return raw;
}

function mediaUdpPorts(env: Env): [number, number] | undefined {
  const raw = env.MEDIA_UDP_PORTS?.trim();
  if (!raw) return undefined;
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(raw);
  const [min, max] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || min < 1024 || max > 65535 || max <= min) {
    throw new ConfigError(`MEDIA_UDP_PORTS must be a range such as 40000-40199 (1024-65535, low < high), got "${raw}"`);
  }
  return [min, max];
}

function iceServers(env: Env): AppConfig['media']['iceServers'] {
  const raw = env.WEBRTC_ICE_SERVERS?.trim();
  if (!raw) return [];
  const shape =
    'a JSON list of ICE servers such as [{"urls":"stun:stun.example.com:3478"},{"urls":"turn:turn.example.com:3478","username":"u","credential":"p"}]';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`WEBRTC_ICE_SERVERS must be ${shape}`);
  }
  const isUrl = (u: unknown) => typeof u === 'string' && /^(stun|stuns|turn|turns):/.test(u);
  const valid =
    Array.isArray(parsed) &&
    parsed.every((s: unknown) => {
      if (s === null || typeof s !== 'object') return false;
      const { urls, username, credential } = s as Record<string, unknown>;
      const urlsOk = Array.isArray(urls) ? urls.length > 0 && urls.every(isUrl) : isUrl(urls);
      return urlsOk && ['string', 'undefined'].includes(typeof username) && ['string', 'undefined'].includes(typeof credential);
    });
  if (!valid) throw new ConfigError(`WEBRTC_ICE_SERVERS must be ${shape}`);
  return parsed as AppConfig['media']['iceServers'];
}

function mediaConfig(env: Env): AppConfig['media'] {
  const internalUrl = env.MEDIA_INTERNAL_URL?.trim() ? url(env, 'MEDIA_INTERNAL_URL', undefined, ['http:', 'https:']).trim().replace(/\/+$/, '') : undefined;
  // 120: one relay process's event loop carried 100 viewers of a 1 Mbps stream whole and stalled for everyone at 200 (bench:media).
  const maxViewers = int(env, 'MEDIA_MAX_VIEWERS', 120, 1, 100_000);
  return { publicIp: mediaPublicIp(env), udpPorts: mediaUdpPorts(env), internalUrl, iceServers: iceServers(env), maxViewers };
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${nodeEnv}"`);
  }
  const production = nodeEnv === 'production';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const baseUrl = publicBaseUrl(env, production, port);

  const delaysRaw = env.WEBHOOK_RETRY_DELAYS_MS;
  let retryDelaysMs = DEFAULT_RETRY_DELAYS_MS;
  if (delaysRaw) {
    const parts = delaysRaw.split(',').map((s) => s.trim());
    if (parts.some((p) => !/^\d+$/.test(p)) || parts.length > 50) {
      throw new ConfigError(`WEBHOOK_RETRY_DELAYS_MS must be comma-separated whole milliseconds, got "${delaysRaw}"`);
    }
    retryDelaysMs = parts.map(Number);
  }

  const secretKey = secret(env, 'WEBHOOK_SECRET_KEY', production, DEV_WEBHOOK_SECRET_KEY);

  const embeddingsUrl = env.SEARCH_EMBEDDINGS_URL ? url(env, 'SEARCH_EMBEDDINGS_URL', undefined, ['http:', 'https:']) : undefined;

  const config = {
    nodeEnv: nodeEnv as AppConfig['nodeEnv'],
    port,
    host: str(env, 'HOST', '0.0.0.0'),
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/partner_api', ['postgres:', 'postgresql:']),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    trustProxy: trustProxy(env),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379/0', ['redis:', 'rediss:']),
    redisPrefix: str(env, 'REDIS_PREFIX', 'pa'),
    publicBaseUrl: baseUrl,
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    runWorker: bool(env, 'RUN_WORKER', true),
    autoMigrate: bool(env, 'AUTO_MIGRATE', true),
    loadDemoCatalogue: bool(env, 'LOAD_DEMO_CATALOGUE', true),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 5000, 1000, 120_000),
    webhook: {
      allowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', !production),
      retryDelaysMs,
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      secretKey,
      sweepIntervalMs: int(env, 'WEBHOOK_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000),
      relayIntervalMs: int(env, 'WEBHOOK_RELAY_INTERVAL_MS', 1000, 100, 3_600_000),
      disableAfterMs: int(env, 'WEBHOOK_DISABLE_AFTER_MS', 5 * 86_400_000, 100, 90 * 86_400_000),
    },
    search: {
      embeddedEngine: bool(env, 'SEARCH_EMBEDDED_ENGINE', true),
      sentenceEncoder: bool(env, 'SEARCH_SENTENCE_ENCODER', true),
      encoderThreads: int(env, 'SEARCH_ENCODER_THREADS', availableParallelism(), 1, 64),
      embeddingsUrl,
      embeddingsModel: str(env, 'SEARCH_EMBEDDINGS_MODEL', 'text-embedding-3-small'),
      embeddingsApiKey: env.SEARCH_EMBEDDINGS_API_KEY || undefined,
    },
    metricsToken: metricsToken(env, production),
    benchDisableAuth: !production && bool(env, 'BENCH_DISABLE_AUTH', false),
    credentials: { signingKey: credentialSigningKey(env, production) },
    smtp: {
      url: env.SMTP_URL ? url(env, 'SMTP_URL', undefined, ['smtp:', 'smtps:']) : null,
      from: str(env, 'SMTP_FROM', `Partner API <no-reply@${new URL(baseUrl).hostname}>`),
    },
    jobs: { sweepIntervalMs: int(env, 'JOBS_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000) },
    media: mediaConfig(env),
    limits: {
      registrationsPerHour: int(env, 'REGISTRATION_LIMIT_PER_HOUR', 5, 1, 1_000_000),
      verificationsPerMinute: int(env, 'VERIFY_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
      authFailuresPerMinute: int(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
    },
  };
  return { ...config, developmentDefaults: developmentDefaults(env, config) };
}

/** Loads the configuration or stops the process with one line naming the bad variable. */
export function loadConfigOrExit(env: Env = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${e.message}\n`);
      process.exit(78);
    }
    throw e;
  }
}
