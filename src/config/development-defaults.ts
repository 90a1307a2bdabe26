import type { LoggerService } from '@nestjs/common';
import type { AppConfig } from './app-config';

type Env = Record<string, string | undefined>;

export const DEV_WEBHOOK_SECRET_KEY = 'dev-only-webhook-secret-key-change-me-in-production';
/** Secrets published in this repository (the development default, the compose file's old default): never valid in production. */
export const KNOWN_DEFAULT_SECRETS: readonly string[] = [DEV_WEBHOOK_SECRET_KEY, 'change-me-to-a-long-random-secret-of-32-chars-or-more'];

/** Each development default (or development-only switch) in force, in words an operator can act on. */
export function developmentDefaults(env: Env, config: Omit<AppConfig, 'developmentDefaults'>): string[] {
  const found: string[] = [];
  if (!env.NODE_ENV) found.push('NODE_ENV is unset: running as development');
  else if (config.nodeEnv !== 'production') found.push(`NODE_ENV is ${config.nodeEnv}`);
  if (KNOWN_DEFAULT_SECRETS.includes(config.webhook.secretKey)) {
    found.push('WEBHOOK_SECRET_KEY is the development key published with the code: webhook secrets and attendee links are sealed with a known key');
  }
  if (!config.credentials.signingKey)
    found.push('CREDENTIAL_SIGNING_KEY is unset: certificate credentials are signed with a development key kept in the database');
  if (config.webhook.allowPrivateTargets) found.push('webhooks may target private and loopback addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS)');
  if (!env.PUBLIC_BASE_URL) found.push(`PUBLIC_BASE_URL is unset: links point at ${config.publicBaseUrl}`);
  else if (config.nodeEnv === 'production' && config.publicBaseUrl.startsWith('http:') && env.ALLOW_HTTP_PUBLIC_BASE_URL)
    found.push(
      `PUBLIC_BASE_URL is plain http (ALLOW_HTTP_PUBLIC_BASE_URL): links and pages at ${config.publicBaseUrl} travel without TLS unless a proxy adds it`,
    );
  if (config.benchDisableAuth) found.push('BENCH_DISABLE_AUTH switches the key guard off for catalogue reads');
  return found;
}

/** One loud line at start-up (API and worker) while anything above is in force. */
export function warnAboutDevelopmentDefaults(logger: LoggerService, config: AppConfig): void {
  if (!config.developmentDefaults.length) return;
  logger.warn(
    { development_defaults: config.developmentDefaults },
    `DEVELOPMENT DEFAULTS IN FORCE, NOT FIT FOR PRODUCTION: ${config.developmentDefaults.join('; ')}`,
    'Config',
  );
}
