export { PartnerApi, SDK_VERSION } from './client';
export type { PartnerApiOptions } from './client';
export { PartnerApiError } from './errors';
export { webhooks, verify as verifyWebhook, WebhookVerificationError } from './webhooks';
export type { HeadersLike, VerifyOptions, WebhookVerificationReason } from './webhooks';
export type * from './types';
