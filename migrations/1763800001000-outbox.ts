import { MigrationInterface, QueryRunner } from 'typeorm';

export class Outbox1763800001000 implements MigrationInterface {
  name = 'Outbox1763800001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id varchar(40) PRIMARY KEY,
        partner_id int NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        type varchar(40) NOT NULL,
        payload jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        dispatched_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL`);
    await q.query(`CREATE INDEX events_scope_idx ON events (partner_id, mode, type, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE events`);
  }
}
