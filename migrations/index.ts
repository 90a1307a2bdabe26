import { Catalogue1763800000000 } from './1763800000000-catalogue';
import { Outbox1763800001000 } from './1763800001000-outbox';
import { PartnersAndKeys1763800002000 } from './1763800002000-partners-and-keys';
import { Users1763800003000 } from './1763800003000-users';
import { Webhooks1763800010000 } from './1763800010000-webhooks';
import { Search1763800020000 } from './1763800020000-search';
import { CreditsAndEnrollment1763800030000 } from './1763800030000-credits-and-enrollment';
import { Certificates1763800040000 } from './1763800040000-certificates';
import { Webinars1763800050000 } from './1763800050000-webinars';
import { EnrollmentCountTrigger1763800060000 } from './1763800060000-enrollment-count-trigger';
import { SearchFacts1763800070000 } from './1763800070000-search-facts';
import { SearchWordVectors1763800080000 } from './1763800080000-search-word-vectors';
import { CredentialSigningKey1763800090000 } from './1763800090000-credential-signing-key';
import { AttendeeLinkTokens1763800100000 } from './1763800100000-attendee-link-tokens';
import { IdempotencyKeys1763800110000 } from './1763800110000-idempotency-keys';
import { UsageCounters1763800111000 } from './1763800111000-usage-counters';
import { DeliverySchedule1763800112000 } from './1763800112000-delivery-schedule';
import { Jobs1763800120000 } from './1763800120000-jobs';
import { EnrollmentCountShards1763800130000 } from './1763800130000-enrollment-count-shards';
import { WebhookTrust1763800150000 } from './1763800150000-webhook-trust';
import { WebhookSubscriptionLimit1763800161000 } from './1763800161000-webhook-subscription-limit';
import { CredentialTestSigningKey1763800162000 } from './1763800162000-credential-test-signing-key';
import { BulkOutstandingRows1763800163000 } from './1763800163000-bulk-outstanding-rows';
import { PartnerEmailVerification1763800164000 } from './1763800164000-partner-email-verification';
import { SearchSentenceVectors1763800280000 } from './1763800280000-search-sentence-vectors';
import { PartnerDashboard1763800320000 } from './1763800320000-partner-dashboard';
import { WebinarMediaSessions1763800330000 } from './1763800330000-webinar-media-sessions';
import { DeliveryErrorsWithoutAddresses1763800340000 } from './1763800340000-delivery-errors-without-addresses';
import { CatalogueViewsForSearch1763800420000 } from './1763800420000-catalogue-views-for-search';
import { PartnerAccountsView1763800430000 } from './1763800430000-partner-accounts-view';
import { CourseTopicsView1763800431000 } from './1763800431000-course-topics-view';
import { MediaRelayOwners1763800440000 } from './1763800440000-media-relay-owners';
import { UndispatchedEvents1763900005001 } from './1763900005001-undispatched-events';
import { WebhookDeliveriesFillfactor1764200031000 } from './1764200031000-webhook-deliveries-fillfactor';
import { SearchVersions1764300005000 } from './1764300005000-search-versions';

/** Every migration in order. A new migration is added here as well, so the build, the CLI and the tests run the same list. */
export const MIGRATIONS = [
  Catalogue1763800000000,
  Outbox1763800001000,
  PartnersAndKeys1763800002000,
  Users1763800003000,
  Webhooks1763800010000,
  Search1763800020000,
  CreditsAndEnrollment1763800030000,
  Certificates1763800040000,
  Webinars1763800050000,
  EnrollmentCountTrigger1763800060000,
  SearchFacts1763800070000,
  SearchWordVectors1763800080000,
  CredentialSigningKey1763800090000,
  AttendeeLinkTokens1763800100000,
  IdempotencyKeys1763800110000,
  UsageCounters1763800111000,
  DeliverySchedule1763800112000,
  Jobs1763800120000,
  EnrollmentCountShards1763800130000,
  WebhookTrust1763800150000,
  WebhookSubscriptionLimit1763800161000,
  CredentialTestSigningKey1763800162000,
  BulkOutstandingRows1763800163000,
  PartnerEmailVerification1763800164000,
  SearchSentenceVectors1763800280000,
  PartnerDashboard1763800320000,
  WebinarMediaSessions1763800330000,
  DeliveryErrorsWithoutAddresses1763800340000,
  CatalogueViewsForSearch1763800420000,
  PartnerAccountsView1763800430000,
  CourseTopicsView1763800431000,
  MediaRelayOwners1763800440000,
  UndispatchedEvents1763900005001,
  WebhookDeliveriesFillfactor1764200031000,
  SearchVersions1764300005000,
];
