import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Background jobs a partner starts and polls (bulk enrolment). PostgreSQL is the record: the job's input rows live in
 * `jobs.input`, and each row's outcome is one `job_results` row, written in the same transaction as the row's effect
 * (a failed row's in its own), so the primary key (job_id, index) makes "applied twice" impossible after any crash.
 * The progress counts are derived from the results, never stored twice.
 */
export class Jobs1763800120000 implements MigrationInterface {
  name = 'Jobs1763800120000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id varchar(40) PRIMARY KEY CHECK (id ~ '^job_[0-9A-Za-z]{22}$'),
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        type varchar(40) NOT NULL CHECK (type IN ('enrollment.bulk')),
        status varchar(10) NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed')),
        total int NOT NULL CHECK (total BETWEEN 1 AND 1000),
        input jsonb NOT NULL CHECK (jsonb_typeof(input) = 'array' AND jsonb_array_length(input) = total),
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NULL,
        completed_at timestamptz NULL,
        CONSTRAINT jobs_state_times_ck CHECK (
          (status = 'queued' AND started_at IS NULL AND completed_at IS NULL)
          OR (status = 'running' AND started_at IS NOT NULL AND completed_at IS NULL)
          OR (status = 'completed' AND started_at IS NOT NULL AND completed_at IS NOT NULL)
        )
      )`);
    await q.query(`CREATE INDEX jobs_scope_idx ON jobs (partner_id, mode, created_at DESC, id DESC)`);
    // The worker's sweep looks only at jobs not completed yet.
    await q.query(`CREATE INDEX jobs_unfinished_idx ON jobs (created_at) WHERE status <> 'completed'`);
    await q.query(`
      CREATE TABLE job_results (
        job_id varchar(40) NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        index int NOT NULL CHECK (index >= 0),
        status varchar(10) NOT NULL CHECK (status IN ('created', 'failed')),
        enrollment_id int NULL REFERENCES enrollments(id),
        credits_deducted int NULL CHECK (credits_deducted >= 0),
        error jsonb NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, index),
        CONSTRAINT job_results_outcome_ck CHECK (
          (status = 'created' AND enrollment_id IS NOT NULL AND credits_deducted IS NOT NULL AND error IS NULL)
          OR (status = 'failed' AND enrollment_id IS NULL AND credits_deducted IS NULL AND error IS NOT NULL)
        )
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE job_results`);
    await q.query(`DROP TABLE jobs`);
  }
}
