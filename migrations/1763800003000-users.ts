import { MigrationInterface, QueryRunner } from 'typeorm';

export class Users1763800003000 implements MigrationInterface {
  name = 'Users1763800003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        partner_id int NOT NULL REFERENCES partners(id),
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        external_user_id varchar(128) NOT NULL CHECK (length(external_user_id) > 0),
        name varchar(200) NOT NULL CHECK (length(btrim(name)) > 0),
        email varchar(320) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_external_id_uq UNIQUE (partner_id, mode, external_user_id)
      )`);
    await q.query(`CREATE INDEX users_scope_idx ON users (partner_id, mode, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE users`);
  }
}
