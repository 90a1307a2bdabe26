import { Catalogue1763800000000 } from './1763800000000-catalogue';
import { Outbox1763800001000 } from './1763800001000-outbox';
import { PartnersAndKeys1763800002000 } from './1763800002000-partners-and-keys';
import { Users1763800003000 } from './1763800003000-users';

/** Every migration in order. A new migration is added here as well, so the build, the CLI and the tests run the same list. */
export const MIGRATIONS = [Catalogue1763800000000, Outbox1763800001000, PartnersAndKeys1763800002000, Users1763800003000];
