import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { join } from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { projectRoot } from '../../common/project-root';
import { CatalogueCache } from '../catalogue-cache';
import { CoursesRepository } from '../courses.repository';
import { CatalogueIndex, CatalogueIndexes } from './catalogue-indexes';
import { CatalogueCourse, buildCatalogue, readCatalogueFiles } from './build-catalogue';

export interface CatalogueLoadResult {
  courses: number;
  topics: number;
  tutors: number;
  created: number;
  updated: number;
}

// Rows per statement: large enough to load ~2,000 courses in a handful of round trips, small enough to keep each statement short.
const BATCH = 500;
// Serialises loads across API instances starting at once (pg_advisory_xact_lock key).
const LOAD_LOCK = 7_204_212;

const tutorKey = (name: string, organisation: string | null) => `${name}\u0000${organisation ?? ''}`;

function chunks<T>(items: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Loads the demo catalogue (data/*.csv) into the database. Idempotent: courses are keyed by source_key,
 * tutors by (name, organisation), topics by (course, position), so loading twice changes nothing.
 */
@Injectable()
export class CatalogueLoader {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: CatalogueCache,
    private readonly repo: CoursesRepository,
    private readonly indexes: CatalogueIndexes,
  ) {}

  /** A loader outside the Nest application (search eval and benchmark scratch databases), keeping these indexes in step. */
  static forDataSource(dataSource: DataSource, cache: CatalogueCache, indexes: CatalogueIndex[] = []): CatalogueLoader {
    const registry = new CatalogueIndexes();
    for (const index of indexes) registry.register(index);
    return new CatalogueLoader(dataSource, cache, new CoursesRepository(dataSource), registry);
  }

  load(dir?: string): Promise<CatalogueLoadResult> {
    return this.run(false, dir) as Promise<CatalogueLoadResult>;
  }

  /** Loads only into an empty catalogue (first start); null when courses already exist. */
  loadIfEmpty(dir?: string): Promise<CatalogueLoadResult | null> {
    return this.run(true, dir);
  }

  private async run(onlyIfEmpty: boolean, dir = join(projectRoot(), 'data')): Promise<CatalogueLoadResult | null> {
    // The cheap check first, so a normal start does not parse the files at all.
    if (onlyIfEmpty && (await this.repo.hasCourses(this.dataSource.manager))) return null;
    const catalogue = buildCatalogue(readCatalogueFiles(dir));
    const result = await this.dataSource.transaction(async (em) => {
      // A bulk load is not a request: no statement time limit, and the lock is polled rather than waited on in one statement.
      await this.repo.startBulkLoad(em);
      for (const index of this.indexes.list()) await index.beforeBulkLoad(em);
      await this.repo.lockCatalogueLoad(em, LOAD_LOCK);
      // Checked again under the lock: another instance may have loaded meanwhile.
      if (onlyIfEmpty && (await this.repo.hasCourses(em))) return null;
      return this.upsert(em, catalogue);
    });
    if (result) await this.cache.invalidate();
    return result;
  }

  private async upsert(em: EntityManager, catalogue: CatalogueCourse[]): Promise<CatalogueLoadResult> {
    const tutorIds = await this.upsertTutors(em, catalogue);
    let created = 0;
    const courseIds = new Map<string, number>();
    for (const batch of chunks(catalogue)) {
      const rows = await this.repo.upsertLoadedCourses(
        em,
        batch.map((c) => ({ ...c, tutorId: tutorIds.get(tutorKey(c.tutor.name, c.tutor.organisation))! })),
      );
      for (const row of rows) {
        courseIds.set(row.source_key, row.id);
        if (row.created) created++;
      }
    }
    const topics = await this.upsertTopics(em, catalogue, courseIds);
    for (const index of this.indexes.list()) await index.afterBulkLoad(em, [...courseIds.values()]);
    return { courses: catalogue.length, topics, tutors: tutorIds.size, created, updated: catalogue.length - created };
  }

  /** Inserts missing tutors (an existing tutor's edited bio is kept) and returns every tutor's id by (name, organisation). */
  private async upsertTutors(em: EntityManager, catalogue: CatalogueCourse[]): Promise<Map<string, number>> {
    const unique = new Map(catalogue.map((c) => [tutorKey(c.tutor.name, c.tutor.organisation), c.tutor]));
    const ids = new Map<string, number>();
    for (const batch of chunks([...unique.values()])) {
      const rows = await this.repo.upsertTutors(em, batch);
      for (const row of rows) ids.set(tutorKey(row.name, row.organisation), row.id);
    }
    return ids;
  }

  /** Upserts topics by (course, position) so their ids survive a reload, then drops positions the course no longer has. */
  private async upsertTopics(em: EntityManager, catalogue: CatalogueCourse[], courseIds: Map<string, number>): Promise<number> {
    const rows = catalogue.flatMap((c) => c.topics.map((t, i) => ({ ...t, courseId: courseIds.get(c.sourceKey)!, position: i + 1 })));
    for (const batch of chunks(rows)) await this.repo.upsertTopics(em, batch);
    await this.repo.trimTopics(
      em,
      catalogue.map((c) => courseIds.get(c.sourceKey)!),
      catalogue.map((c) => c.topics.length),
    );
    return rows.length;
  }
}
