import { URL } from 'node:url';

/** Typed configuration, read once from the environment and validated at start-up. */
export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections per process. */
  databasePoolSize: number;
  /** Trust X-Forwarded-For for the client IP (behind a load balancer). */
  trustProxy: boolean;
  redisUrl: string;
  /** Prefix for every Redis key and BullMQ queue, so several deployments or test runs share one Redis. */
  redisPrefix: string;
  publicBaseUrl: string;
  logLevel: string;
  runWorker: boolean;
  autoMigrate: boolean;
  loadDemoCatalogue: boolean;
  webhook: {
    allowPrivateTargets: boolean;
    retryDelaysMs: number[];
    timeoutMs: number;
    secretKey: string;
  };
  search: {
    embeddingsUrl?: string;
    embeddingsModel: string;
    embeddingsApiKey?: string;
  };
  metricsToken?: string;
  limits: {
    /** Self-service registrations per client IP per hour (contract: 5). */
    registrationsPerHour: number;
    /** Public certificate verifications per client IP per minute. */
    verificationsPerMinute: number;
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000];
const DEV_WEBHOOK_SECRET_KEY = 'dev-only-webhook-secret-key-change-me-in-production';

function str(env: Env, name: string, fallback?: string): string {
  const v = env[name];
  if (v === undefined || v === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required`);
    return fallback;
  }
  return v;
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

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${nodeEnv}"`);
  }
  const production = nodeEnv === 'production';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(/\/+$/, '');

  const delaysRaw = env.WEBHOOK_RETRY_DELAYS_MS;
  let retryDelaysMs = DEFAULT_RETRY_DELAYS_MS;
  if (delaysRaw) {
    const parts = delaysRaw.split(',').map((s) => s.trim());
    if (parts.some((p) => !/^\d+$/.test(p)) || parts.length > 50) {
      throw new ConfigError(`WEBHOOK_RETRY_DELAYS_MS must be comma-separated whole milliseconds, got "${delaysRaw}"`);
    }
    retryDelaysMs = parts.map(Number);
  }

  const secretKey = str(env, 'WEBHOOK_SECRET_KEY', production ? undefined : DEV_WEBHOOK_SECRET_KEY);
  if (secretKey.length < 32) throw new ConfigError('WEBHOOK_SECRET_KEY must be at least 32 characters');

  const embeddingsUrl = env.SEARCH_EMBEDDINGS_URL
    ? url(env, 'SEARCH_EMBEDDINGS_URL', undefined, ['http:', 'https:'])
    : undefined;

  return {
    nodeEnv: nodeEnv as AppConfig['nodeEnv'],
    port,
    host: str(env, 'HOST', '0.0.0.0'),
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/partner_api', ['postgres:', 'postgresql:']),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379/0', ['redis:', 'rediss:']),
    redisPrefix: str(env, 'REDIS_PREFIX', 'pa'),
    publicBaseUrl,
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    runWorker: bool(env, 'RUN_WORKER', true),
    autoMigrate: bool(env, 'AUTO_MIGRATE', true),
    loadDemoCatalogue: bool(env, 'LOAD_DEMO_CATALOGUE', true),
    webhook: {
      allowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', !production),
      retryDelaysMs,
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      secretKey,
    },
    search: {
      embeddingsUrl,
      embeddingsModel: str(env, 'SEARCH_EMBEDDINGS_MODEL', 'text-embedding-3-small'),
      embeddingsApiKey: env.SEARCH_EMBEDDINGS_API_KEY || undefined,
    },
    metricsToken: env.METRICS_TOKEN || undefined,
    limits: {
      registrationsPerHour: int(env, 'REGISTRATION_LIMIT_PER_HOUR', 5, 1, 1_000_000),
      verificationsPerMinute: int(env, 'VERIFY_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    },
  };
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
