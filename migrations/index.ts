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

/** Every migration in order. A new migration is added here as well, so the build, the CLI and the tests run the same list. */
export const MIGRATIONS = [Catalogue1763800000000, Outbox1763800001000, PartnersAndKeys1763800002000, Users1763800003000, Webhooks1763800010000, Search1763800020000, CreditsAndEnrollment1763800030000, Certificates1763800040000, Webinars1763800050000, EnrollmentCountTrigger1763800060000, SearchFacts1763800070000];
