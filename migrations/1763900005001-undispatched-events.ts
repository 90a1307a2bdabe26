import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's undispatched events move from a column of `events` to a table of their own, written in the same
 * statement as the event and deleted once it is dispatched. Setting `events.dispatched_at` rewrote the whole row and
 * every index entry (the column was in the partial index's condition, so the update could never be HOT), once per
 * event; deleting a key from a small table writes neither, and `events` is now only ever inserted into.
 */
export class UndispatchedEvents1763900005001 implements MigrationInterface {
  name = 'UndispatchedEvents1763900005001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events_undispatched (
        event_id varchar(40) PRIMARY KEY,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX events_undispatched_created_idx ON events_undispatched (created_at)`);
    await q.query(`INSERT INTO events_undispatched (event_id, created_at) SELECT id, created_at FROM events WHERE dispatched_at IS NULL`);
    await q.query(`DROP INDEX events_undispatched_idx`);
    await q.query(`ALTER TABLE events DROP COLUMN dispatched_at`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN dispatched_at timestamptz`);
    await q.query(`UPDATE events e SET dispatched_at = e.created_at WHERE NOT EXISTS (SELECT 1 FROM events_undispatched u WHERE u.event_id = e.id)`);
    await q.query(`CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL`);
    await q.query(`DROP TABLE events_undispatched`);
  }
}
