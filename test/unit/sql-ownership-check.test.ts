import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check } = require('../../scripts/check-sql-ownership.js') as {
  check: (root: string, ownership: object) => Array<{ where: string; rule: string; message: string }>;
};

const ownership = {
  tables: { jobs: 'jobs', courses: 'courses', topics: 'courses' },
  shared: { published_courses: { owner: 'courses', readers: ['search'] }, course_enrolled: { owner: 'courses', readers: [] } },
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sql-ownership-'));
  write('migrations/1-init.ts', 'CREATE TABLE jobs (id int); CREATE TABLE courses (id int); CREATE TABLE topics (id int);');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

const findings = () => check(root, ownership).map((p) => `${p.where} ${p.rule}`);

describe('scripts/check-sql-ownership.js', () => {
  it("passes a feature's statements in its repository or store, and a shared view read by its reader", () => {
    write('src/jobs/jobs.repository.ts', "const a = `SELECT id FROM jobs WHERE ${inScope()} AND id = $3`;\nconst b = 'DELETE FROM jobs';");
    write('src/courses/worker/count-store.ts', "const c = 'SELECT course_enrolled(1) FROM courses c JOIN topics t ON t.course_id = c.id';");
    write('src/search/lexical.store.ts', "const d = 'SELECT c.id FROM published_courses c';");
    write('src/courses/admin-courses.controller.ts', "const prose = 'it disappears from courses lists at once';");
    expect(findings()).toEqual([]);
  });

  it('names the file, the line and the rule of each finding', () => {
    write('src/search/lexical.store.ts', "const a = 1;\nconst b = 'SELECT c.id FROM courses c, topics t';");
    write('src/jobs/jobs.service.ts', "const c = 'UPDATE jobs SET status = $1';");
    write(
      'src/enrollment/enrollments.repository.ts',
      "const d = 'SELECT 1 FROM published_courses WHERE partner_id = $1';\ndeclare const em: { query(s: string): void };\nem.query(d);",
    );
    write('src/webhooks/webhooks.repository.ts', 'declare const em: { save(x: unknown): void };\nem.save({});');
    write('migrations/2-more.ts', 'CREATE TABLE webhooks (id int)');
    expect(findings().sort()).toEqual(
      [
        'scripts/sql-ownership.json undeclared-table',
        'src/search/lexical.store.ts:2 foreign-table',
        'src/search/lexical.store.ts:2 foreign-table',
        'src/jobs/jobs.service.ts:1 sql-outside-repository',
        'src/enrollment/enrollments.repository.ts:1 foreign-table',
        'src/enrollment/enrollments.repository.ts:1 hand-typed-scope',
        'src/enrollment/enrollments.repository.ts:3 bare-query',
        'src/webhooks/webhooks.repository.ts:2 typeorm-entity-api',
      ].sort(),
    );
  });
});
