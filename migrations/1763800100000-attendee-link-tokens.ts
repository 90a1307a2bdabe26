import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Personal attendee links carry a random token from now on (stored as its SHA-256 and sealed with a key derived
 * from WEBHOOK_SECRET_KEY). The old tokens were an HMAC anyone holding that key could compute, so their hashes
 * are voided: those links stop working, and registering the learner again hands out a fresh one.
 */
export class AttendeeLinkTokens1763800100000 implements MigrationInterface {
  name = 'AttendeeLinkTokens1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webinar_attendees ADD COLUMN attendee_token_sealed text NULL`);
    await q.query(`ALTER TABLE webinar_attendees ALTER COLUMN attendee_token_hash DROP NOT NULL`);
    await q.query(`UPDATE webinar_attendees SET attendee_token_hash = NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Links cannot go back to the derivable scheme: every seat gets a hash no token matches until re-registered.
    await q.query(`UPDATE webinar_attendees SET attendee_token_hash = encode(sha256(gen_random_uuid()::text::bytea), 'hex') WHERE attendee_token_hash IS NULL`);
    await q.query(`ALTER TABLE webinar_attendees ALTER COLUMN attendee_token_hash SET NOT NULL`);
    await q.query(`ALTER TABLE webinar_attendees DROP COLUMN attendee_token_sealed`);
  }
}
