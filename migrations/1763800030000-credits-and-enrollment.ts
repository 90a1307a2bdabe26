import { MigrationInterface, QueryRunner } from 'typeorm';

/** Enrolments with per-topic progress, and the credit ledger whose sum is each account's balance. */
export class CreditsAndEnrollment1763800030000 implements MigrationInterface {
  name = 'CreditsAndEnrollment1763800030000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE enrollments (
        id serial PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        user_id int NOT NULL REFERENCES users(id),
        course_id int NOT NULL REFERENCES courses(id),
        status varchar(10) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed')),
        credits_deducted int NOT NULL DEFAULT 0 CHECK (credits_deducted >= 0),
        enrolled_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        certificate_id varchar(40),
        CONSTRAINT enrollments_user_course_uq UNIQUE (user_id, course_id),
        CONSTRAINT enrollments_completed_ck CHECK ((status = 'completed') = (completed_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX enrollments_scope_user_idx ON enrollments (partner_id, mode, user_id, id)`);
    await q.query(`CREATE INDEX enrollments_course_idx ON enrollments (course_id)`);

    // Topic completion and quiz pass are tracked separately: a has_quiz topic can be done with its quiz pending.
    await q.query(`
      CREATE TABLE enrollment_topics (
        enrollment_id int NOT NULL REFERENCES enrollments(id),
        topic_id int NOT NULL REFERENCES topics(id),
        completed_at timestamptz NOT NULL DEFAULT now(),
        quiz_passed_at timestamptz,
        PRIMARY KEY (enrollment_id, topic_id)
      )`);

    await q.query(`
      CREATE TABLE credit_accounts (
        user_id int PRIMARY KEY REFERENCES users(id),
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        balance int NOT NULL DEFAULT 0 CONSTRAINT credit_accounts_balance_ck CHECK (balance >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE credit_transactions (
        id varchar(40) PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id),
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        amount int NOT NULL,
        kind varchar(12) NOT NULL CHECK (kind IN ('topup', 'enrollment')),
        source varchar(100),
        reference varchar(200),
        enrollment_id int REFERENCES enrollments(id),
        balance_after int NOT NULL CHECK (balance_after >= 0),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT credit_transactions_kind_ck CHECK (
          (kind = 'topup' AND amount BETWEEN 1 AND 1000000 AND enrollment_id IS NULL)
          OR (kind = 'enrollment' AND amount < 0 AND enrollment_id IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX credit_transactions_reference_uq ON credit_transactions (partner_id, mode, reference) WHERE reference IS NOT NULL`);
    await q.query(`CREATE INDEX credit_transactions_user_idx ON credit_transactions (user_id, created_at DESC, id DESC)`);

    // The ledger is append-only: corrections are new rows, never edits.
    await q.query(`
      CREATE FUNCTION credit_transactions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'credit_transactions is append-only';
      END $$`);
    await q.query(`
      CREATE TRIGGER credit_transactions_append_only BEFORE UPDATE OR DELETE ON credit_transactions
        FOR EACH ROW EXECUTE FUNCTION credit_transactions_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE credit_transactions`);
    await q.query(`DROP FUNCTION credit_transactions_append_only()`);
    await q.query(`DROP TABLE credit_accounts`);
    await q.query(`DROP TABLE enrollment_topics`);
    await q.query(`DROP TABLE enrollments`);
  }
}
