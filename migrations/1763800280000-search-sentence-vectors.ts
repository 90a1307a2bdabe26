import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vectors of the search's sentence encoder, addressed by the model that made them and the md5 of the exact text it
 * encoded: a course whose text did not change finds its vector again (after a restart, on any instance), and a changed
 * text gets a new row. Float32 little-endian, 512 per vector for the current model.
 */
export class SearchSentenceVectors1763800280000 implements MigrationInterface {
  name = 'SearchSentenceVectors1763800280000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_sentence_vectors (
        model varchar(100) NOT NULL,
        text_hash char(32) NOT NULL,
        vector bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (model, text_hash)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE search_sentence_vectors`);
  }
}
