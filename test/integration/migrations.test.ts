import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { MIGRATIONS } from '../../migrations';
import { OLD_SOCKET_ERROR, rewrittenError } from '../../migrations/1763800340000-delivery-errors-without-addresses';
import { Course } from '../../src/courses/course.entity';
import { Topic } from '../../src/courses/topic.entity';
import { Tutor } from '../../src/courses/tutor.entity';
import { createCourse } from '../support/factories';

// The file's own copy of the migrated template: reverting its latest migration touches no other file.
let db: DataSource;

beforeAll(async () => {
  db = new DataSource({ ...dataSourceOptions(process.env.DATABASE_URL!), entities: [Course, Topic, Tutor] } as never);
  await db.initialize();
});
afterAll(async () => {
  await db?.destroy();
});

describe('migrations', () => {
  it('the latest migration reverts and applies again on a database holding courses', async () => {
    const { course } = await createCourse(db, { title: 'Bookbinding for everyone' });
    const latest = MIGRATIONS[MIGRATIONS.length - 1].name;
    await db.undoLastMigration();
    expect((await db.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1'))[0].name).not.toBe(latest);
    await db.query(`UPDATE courses SET title = 'Bookbinding by hand' WHERE id = $1`, [course.id]);
    await db.runMigrations();
    expect((await db.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1'))[0].name).toBe(latest);
    // The search index describes the course as it is now, whatever the reverted migration did with it.
    const [row] = await db.query(`SELECT h.published, h.head @@ to_tsquery('english', 'hand') AS current FROM search_heads h WHERE h.course_id = $1`, [
      course.id,
    ]);
    expect(row).toEqual({ published: true, current: true });
  });

  it('rewrites stored webhook errors that named an address into the sender’s address-free wording', async () => {
    const stored = [
      ['ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:43271', 'Connection refused'],
      ['ECONNRESET: read ECONNRESET', 'Connection reset'],
      ['ENOTFOUND: getaddrinfo ENOTFOUND hooks.internal', 'Host not found'],
      ['UND_ERR_SOCKET: other side closed', 'Connection closed before a response'],
      ['EWEIRD: connect EWEIRD 10.1.2.3:443', 'Request failed (EWEIRD)'],
      ['AggregateError: connect ECONNREFUSED ::1:80, connect ECONNREFUSED 127.0.0.1:80', 'Request failed'],
      ['Refused target: hooks.internal is not a public address', 'Refused target: hooks.internal is not a public address'],
      ['Timed out after 2000 ms', 'Timed out after 2000 ms'],
      ['HTTP 503', 'HTTP 503'],
    ];
    const rows: Array<{ error: string }> = await db.query(
      `SELECT CASE WHEN v.error ~ '${OLD_SOCKET_ERROR}' THEN ${rewrittenError('v.error')} ELSE v.error END AS error
         FROM unnest($1::text[]) WITH ORDINALITY AS v(error, n) ORDER BY n`,
      [stored.map(([before]) => before)],
    );
    expect(rows.map((r) => r.error)).toEqual(stored.map(([, after]) => after));
  });
});
