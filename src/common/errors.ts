/**
 * Every error code the API answers with, its HTTP status and default message.
 * Feature code throws `new DomainError(code, details?)`; the exception filter renders the envelope.
 */
export const ERROR_CODES = {
  validation_failed: [400, 'The request is invalid.'],
  invalid_json: [400, 'The request body is not valid JSON.'],
  missing_api_key: [401, 'The X-API-Key header is missing.'],
  invalid_api_key: [401, 'The API key is malformed or unknown.'],
  revoked_api_key: [401, 'The API key has been revoked.'],
  account_suspended: [401, 'The partner account is suspended.'],
  missing_token: [401, 'An Authorization: Bearer token is required.'],
  invalid_token: [401, 'The token is not valid for this webinar.'],
  endpoint_not_in_plan: [401, 'Your plan does not include this endpoint.'],
  monthly_quota_exceeded: [401, 'The monthly API call quota of your plan is used up.'],
  insufficient_credits: [402, 'The user does not have enough credits.'],
  admin_only: [403, 'This operation needs an admin key.'],
  email_not_verified: [403, 'Verify your e-mail address first: open the link we sent to it.'],
  origin_not_allowed: [403, 'The request origin is not on the allowlist.'],
  plan_limit_exceeded: [403, 'Your plan limit has been reached.'],
  course_not_found: [404, 'Course not found.'],
  user_not_found: [404, 'User not found.'],
  enrollment_not_found: [404, 'Enrollment not found.'],
  topic_not_found: [404, 'Topic not found.'],
  certificate_not_found: [404, 'Certificate not found.'],
  webinar_not_found: [404, 'Webinar not found.'],
  webhook_not_found: [404, 'Webhook subscription not found.'],
  job_not_found: [404, 'Job not found.'],
  host_token_required: [403, 'Only the host token may publish to this webinar.'],
  partner_not_found: [404, 'Partner not found.'],
  api_key_not_found: [404, 'API key not found.'],
  verification_link_invalid: [404, 'This verification link is unknown, already used or expired.'],
  production_access_request_not_found: [404, 'Production access request not found.'],
  delivery_not_found: [404, 'Webhook delivery not found.'],
  media_session_not_found: [404, 'Media session not found.'],
  route_not_found: [404, 'No route matches this method and path.'],
  method_not_allowed: [405, 'This method is not allowed on this path.'],
  already_enrolled: [409, 'The user is already enrolled in this course.'],
  certificate_already_issued: [409, 'A certificate has already been issued for this enrollment.'],
  external_user_id_taken: [409, 'A user with this external_user_id already exists.'],
  email_already_registered: [409, 'A partner account with this e-mail address already exists.'],
  reference_conflict: [409, 'This reference was already used for a different top-up.'],
  production_access_already_requested: [409, 'A production access request is already pending.'],
  request_already_reviewed: [409, 'This request has already been reviewed.'],
  webinar_not_live: [409, 'The webinar is not live.'],
  webinar_ended: [409, 'The webinar has ended.'],
  webinar_already_live: [409, 'The webinar is already live.'],
  webinar_already_publishing: [409, 'Someone is already publishing to this webinar.'],
  webinar_full: [409, 'The webinar has reached its attendee limit.'],
  webhook_disabled: [409, 'The webhook subscription is disabled. Re-enable it with PATCH { "status": "active" } first.'],
  idempotency_request_in_progress: [409, 'A request with this Idempotency-Key is still being processed.'],
  certificate_revoked: [410, 'This certificate has been revoked; its credential is no longer issued.'],
  payload_too_large: [413, 'The request body is larger than 100 kB.'],
  unsupported_media_type: [415, 'Requests with a body must be sent as Content-Type: application/json.'],
  headers_too_large: [431, 'The request line and headers are larger than 16 kB.'],
  course_not_completed: [422, 'The course has not been completed.'],
  idempotency_key_reused: [422, 'This Idempotency-Key was used with a different request.'],
  rate_limited: [429, 'Too many requests. Slow down and retry after the time in Retry-After.'],
  internal_error: [500, 'Something went wrong on our side. It has been logged.'],
  service_unavailable: [503, 'The service is temporarily unavailable. Retry shortly.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class DomainError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly details?: unknown,
    message?: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERROR_CODES[code][1]);
    this.status = ERROR_CODES[code][0];
  }
}

export interface FieldError {
  field: string;
  message: string;
}

/** The most problems an error's `details` lists; a body of thousands of bad fields would otherwise get an answer larger than itself. */
export const MAX_ERROR_DETAILS = 50;

/**
 * At most MAX_ERROR_DETAILS entries, then one more saying how many were left out:
 * `{ field: "*", message: "8950 more problems not listed", omitted: 8950 }`.
 */
export function capDetails(details: unknown): unknown {
  if (!Array.isArray(details) || details.length <= MAX_ERROR_DETAILS + 1) return details;
  const omitted = details.length - MAX_ERROR_DETAILS;
  return [...(details.slice(0, MAX_ERROR_DETAILS) as unknown[]), { field: '*', message: `${omitted} more problems not listed`, omitted }];
}

export function validationFailed(details: FieldError[], message = 'The request is invalid.'): DomainError {
  return new DomainError('validation_failed', details, message);
}
