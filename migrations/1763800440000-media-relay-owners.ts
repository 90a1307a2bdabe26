import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which service instance owns each live webinar's media relay, under a lease its owner renews every second: an
 * instance that dies stops renewing, and once `expires_at` passes another instance may take the webinar over.
 * `internal_url` is where the other instances forward the webinar's signalling.
 */
export class MediaRelayOwners1763800440000 implements MigrationInterface {
  name = 'MediaRelayOwners1763800440000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE media_relay_owners (
        webinar_id varchar(40) PRIMARY KEY REFERENCES webinars(id) ON DELETE CASCADE,
        instance_id varchar(32) NOT NULL,
        internal_url varchar(300) NOT NULL,
        renewed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX media_relay_owners_instance_idx ON media_relay_owners (instance_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE media_relay_owners`);
  }
}
