import { DataSource } from 'typeorm';
import { EmbeddingsClient } from '../../src/search/embeddings.client';
import { SemanticSearch } from '../../src/search/semantic-search';

/** A stand-in database: the stored vectors change on every check and loading them takes `loadMs`. */
function slowDatabase(loadMs: number) {
  let stamp = 0;
  const loads: number[] = [];
  const db = {
    query: async (sql: string) => {
      if (/AS stamp/.test(sql)) return [{ stamp: String(++stamp) }];
      loads.push(Date.now());
      // Unref'd: a reload still "loading" when the file's tests are done must not hold jest's worker open.
      await new Promise((r) => setTimeout(r, loadMs).unref());
      return [{ course_id: 7, embedding: [1, 0, 0] }];
    },
  } as unknown as DataSource;
  return { db, loads };
}

const client = { model: 'm', embed: async () => [[1, 0, 0]] } as unknown as EmbeddingsClient;

describe('SemanticSearch reloads stored vectors in the background', () => {
  it('a search never waits for a reload of the stored vectors', async () => {
    const { db, loads } = slowDatabase(2000);
    const semantic = new SemanticSearch(db, client);
    const started = Date.now();
    await semantic.rank('anything', 10);
    expect(Date.now() - started).toBeLessThan(300);
    // The reload is under way in the background (its stamp read and load are a few promise hops behind the search).
    await new Promise((r) => setImmediate(r));
    expect(loads.length).toBeGreaterThanOrEqual(1);
  });

  it('uses the new vectors once the reload has finished', async () => {
    const { db } = slowDatabase(50);
    const semantic = new SemanticSearch(db, client);
    await semantic.rank('anything', 10);
    await new Promise((r) => setTimeout(r, 200));
    expect(await semantic.rank('anything', 10)).toEqual([7]);
  });
});
