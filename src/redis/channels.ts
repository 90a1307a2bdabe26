/** Redis pub/sub channels, named once so that publishers and subscribers cannot drift apart. */

/** Published by CatalogueCache after every catalogue change: caches clear and the search indexes refresh. */
export const CATALOGUE_CHANGED = 'catalogue.changed';
