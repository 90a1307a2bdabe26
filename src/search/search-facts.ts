import type { Queryable } from '../common/database';
import { CoalescedRun } from '../common/coalesced-run';
import { TimeSlices } from '../common/time-slices';
import { PeriodicTask } from '../common/periodic-task';
import {
  courseFactsStamp,
  CourseFacts,
  MatchableName,
  organisationNames,
  organisationPattern,
  passesFilters,
  publishedCourseFacts,
  publishedTitles,
} from './lexical-search.store';
import { documentsStamp } from './search.store';
import { FuzzyTitleIndex, FuzzyTitleOptions } from './fuzzy-titles';
import type { SearchFilters } from './query-parser';

// How often the facts in memory are compared with the table, besides catalogue notifications.
const CHECK_EVERY_MS = 3000;

/**
 * The filter facts of every published course and the names a query's "from …" may resolve to, in memory, so that the
 * semantic engines' candidates are filtered and organisations resolved without a round trip (otherwise the first
 * statement of a search, and the last before its results are read), and the published titles by word, for ranking
 * them by a typo query's words as typed (FuzzyTitleIndex). They follow the tables as the engines' indexes do: reloaded
 * on every catalogue notification and whenever a check every 3 s finds the facts' or the documents' version moved (a
 * title edit rebuilds the course's document and leaves its facts). Until the first load, filter() answers null and the
 * caller asks PostgreSQL, and fuzzyTitles() answers null.
 */
export class SearchFacts {
  private facts: Map<number, CourseFacts> | null = null;
  private names: { organisations: MatchableName[]; tutors: MatchableName[] } = { organisations: [], tutors: [] };
  private titles: FuzzyTitleIndex | null = null;
  private stamp = '';
  private readonly checks = new PeriodicTask({ name: SearchFacts.name, intervalMs: CHECK_EVERY_MS, firstDelayMs: 0, unref: true }, () => this.refresh());
  private readonly reloads = new CoalescedRun(() => this.reloadIfChanged());

  constructor(private readonly db: Queryable) {}

  start(): void {
    this.checks.start();
  }

  stop(): Promise<void> {
    return this.checks.stop();
  }

  /** Rereads the facts when the table's stamp moved; a call during a reload makes it run once more. */
  refresh(): Promise<void> {
    return this.reloads.run();
  }

  private async reloadIfChanged(): Promise<void> {
    const stamp = (await Promise.all([courseFactsStamp(this.db), documentsStamp(this.db)])).join(':');
    if (stamp === this.stamp && this.facts) return;
    // Started before the statements: the work right after a result arrives (parsed in the same turn) yields at once.
    const slices = new TimeSlices();
    // One statement after the other: results arriving together are parsed in the same turn of the event loop, which
    // at 20,000 courses held it 50–130 ms; the facts come in pages for the same reason.
    const rows = await publishedCourseFacts(this.db);
    const names = await organisationNames(this.db);
    const titles = await publishedTitles(this.db);
    // The title index is built in slices with other requests served in between, the old facts and index answering
    // them; then everything is swapped in at once, so that no search reads a half-built index or new facts with old
    // titles. CoalescedRun keeps reloads from overlapping.
    const facts = new Map<number, CourseFacts>();
    for (let i = 0; i < rows.length; i++) {
      facts.set(rows[i].id, rows[i]);
      if (i % 1024 === 1023) await slices.pause();
    }
    const index = await FuzzyTitleIndex.build(titles, slices);
    this.facts = facts;
    this.names = names;
    this.titles = index;
    this.stamp = stamp;
  }

  /** The published courses among `ids` that pass the filters, or null while nothing is loaded. */
  filter(ids: number[], filters: SearchFilters): Set<number> | null {
    const facts = this.facts;
    if (!facts) return null;
    const out = new Set<number>();
    for (const id of ids) {
      const c = facts.get(id);
      if (c && passesFilters(c, filters)) out.add(id);
    }
    return out;
  }

  /**
   * LexicalSearch.resolveOrganisation from memory (undefined while nothing is loaded): the first phrase naming an
   * organisation (most courses first) or a tutor of a published course. A search naming "from", "by" or "at" resolves
   * it before any other of its work can start, so it should cost no round trip.
   */
  resolveOrganisation(phrases: string[]): { index: number; name: string } | null | undefined {
    if (!this.facts) return undefined;
    for (let index = 0; index < phrases.length; index++) {
      const pattern = organisationPattern(phrases[index]);
      const hit = this.names.organisations.find((n) => pattern.test(n.lower)) ?? this.names.tutors.find((n) => pattern.test(n.lower));
      if (hit) return { index, name: hit.name };
    }
    return null;
  }

  /** The title word a misspelt word most likely stands for (FuzzyTitleIndex.closest), or null. */
  closestTitleWord(typed: string): string | null {
    return this.titles?.closest(typed) ?? null;
  }

  /** The title word two typed words stand for when typed as one (FuzzyTitleIndex.joined), or null. */
  joinedTitleWord(first: string, second: string, slips: boolean): string | null {
    return this.titles?.joined(first, second, slips) ?? null;
  }

  /**
   * The published courses passing the filters ranked by how closely their titles hold the query's words as typed
   * (FuzzyTitleIndex.rank), or null while nothing is loaded.
   */
  fuzzyTitles(typed: string[], misspelt: Iterable<string>, filters: SearchFilters, options: FuzzyTitleOptions): Array<{ id: number; score: number }> | null {
    const facts = this.facts;
    const titles = this.titles;
    if (!facts || !titles) return null;
    const ranked = titles.rank(typed, misspelt, { ...options, depth: Infinity });
    return ranked
      .filter((h) => {
        const c = facts.get(h.id);
        return c !== undefined && passesFilters(c, filters);
      })
      .slice(0, options.depth);
  }
}
