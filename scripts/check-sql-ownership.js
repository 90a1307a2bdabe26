#!/usr/bin/env node
/**
 * Checks where hand-written SQL lives (`npm run lint:sql`). dependency-cruiser sees imports, not the table names
 * inside string literals, so this reads every string and template literal under src/ and fails when:
 *
 * - foreign-table: a file names a table (FROM, JOIN, INTO, UPDATE, TABLE, TRUNCATE) or calls a database function its
 *   feature does not own and is not listed as a reader of; another feature's rows come through that feature's service;
 * - sql-outside-repository: a feature file other than its repository (`*.repository.ts`) or store (`*.store.ts`,
 *   `*-store.ts`) names any table, even its own;
 * - hand-typed-scope: a literal `partner_id = $` outside src/common/scope.ts (use `inScope()` and `scopeParams()`);
 * - bare-query: a `.query(` call outside src/common/database.ts and the query runner beneath it (use `sql`, `sqlOne`,
 *   `returning`, `affected`);
 * - typeorm-entity-api: TypeORM's entity API (`getRepository`, `createQueryBuilder`, or `save`, `create`, `find…`,
 *   `insert`, `update`, `delete` on an EntityManager or DataSource): its rows are hydrated out of sight of this check.
 *
 * Owners are declared once, in scripts/sql-ownership.json: `tables` maps each table to its feature (every table a
 * migration creates must be there), `shared` maps a function or view to its owner and the features allowed to read it.
 *
 * Usage: node scripts/check-sql-ownership.js [--report]   (--report prints the findings and exits 0)
 */
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const STORE_FILE = /(\.repository|\.store|-store)\.ts$/;
const SCOPE_FILE = 'src/common/scope.ts';
// The SQL helpers, and the query runner under them that sends their statements and TypeORM's transaction control
// (no feature's SQL).
const DATABASE_FILES = new Set(['src/common/database.ts', 'src/database/batching-query-runner.ts']);
const NAME = String.raw`(?:public\.)?"?([a-z_][a-z0-9_]*)"?`;
// A relation after one of these keywords; FROM and JOIN lists may go on with `, other [alias]`. Keywords are matched in
// capitals, as the code writes SQL, so prose such as "disappears from partners' lists" is not a statement.
const RELATION = new RegExp(String.raw`\b(?:FROM|JOIN|INTO|UPDATE|TRUNCATE|TABLE)\s+(?:ONLY\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?${NAME}`, 'g');
const LIST_ITEM = new RegExp(
  String.raw`^(?:\s+(?:AS\s+)?(?!WHERE|ON|JOIN|LEFT|RIGHT|INNER|CROSS|FULL|USING|SET|GROUP|ORDER|LIMIT)[a-z_][a-z0-9_]*)?\s*,\s*${NAME}`,
);
const SCOPE_BY_HAND = /partner_id\s*=\s*\$/i;

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every table and view the migrations create must have an owner here, so a new one cannot go unchecked. */
function undeclaredRelations(root, ownership) {
  const created = new Set();
  for (const file of walk(path.join(root, 'migrations'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/CREATE\s+(?:UNLOGGED\s+)?(?:TABLE|(?:MATERIALIZED\s+)?VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)/gi))
      created.add(m[1]);
  }
  return [...created].filter((name) => !(name in ownership.tables) && !(name in ownership.shared));
}

/** The text pieces of string and template literals, each with the position of its first character. */
function literals(source) {
  const pieces = [];
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) pieces.push({ text: node.text, pos: node.getStart(source) + 1 });
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) pieces.push({ text: node.text, pos: node.getStart(source) + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return pieces;
}

const ENTITY_API = new Set(['getRepository', 'createQueryBuilder', 'findOneBy', 'findBy', 'findAndCount']);
const MANAGER_API = new Set(['save', 'create', 'find', 'findOne', 'insert', 'update', 'delete', 'remove', 'upsert', 'count']);
// How the code names an EntityManager or DataSource: `em`, `tx.em`, `this.dataSource`, `dataSource.manager` …
const MANAGER = /(^|\.)(em|manager|dataSource|entityManager)$/;

/** Positions of `.query(` calls and of TypeORM entity-API calls. */
function calls(source) {
  const query = [];
  const entity = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const pos = node.expression.name.getStart(source);
      if (method === 'query') query.push(pos);
      else if (ENTITY_API.has(method) || (MANAGER_API.has(method) && MANAGER.test(node.expression.expression.getText(source)))) entity.push({ pos, method });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { query, entity };
}

function relationsIn(text, ownership) {
  const found = [];
  for (const m of text.matchAll(RELATION)) {
    found.push({ name: m[1].toLowerCase(), index: m.index });
    if (!/^(?:FROM|JOIN)/i.test(m[0])) continue;
    let rest = text.slice(m.index + m[0].length);
    let offset = m.index + m[0].length;
    for (let item = LIST_ITEM.exec(rest); item; item = LIST_ITEM.exec(rest)) {
      found.push({ name: item[1].toLowerCase(), index: offset });
      offset += item[0].length;
      rest = rest.slice(item[0].length);
    }
  }
  for (const name of Object.keys(ownership.shared)) {
    for (const m of text.matchAll(new RegExp(String.raw`\b${name}\s*\(`, 'g'))) found.push({ name, index: m.index, shared: true });
  }
  return found;
}

function featureOf(file) {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : null;
}

/** Every finding under `root` (its src/ and migrations/), with the owners of `ownership`. */
function check(root, ownership) {
  const problems = [];
  for (const name of undeclaredRelations(root, ownership))
    problems.push({ where: 'scripts/sql-ownership.json', rule: 'undeclared-table', message: `${name} is created by a migration but has no owner` });

  for (const full of walk(path.join(root, 'src'))) {
    const file = path.relative(root, full).split(path.sep).join('/');
    const text = fs.readFileSync(full, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const feature = featureOf(file);
    const at = (pos) => `${file}:${source.getLineAndCharacterOfPosition(pos).line + 1}`;
    const seen = new Set();
    const add = (pos, rule, message) => {
      const key = `${at(pos)} ${rule} ${message}`;
      if (seen.has(key)) return;
      seen.add(key);
      problems.push({ where: at(pos), rule, message });
    };

    for (const piece of literals(source)) {
      const posOf = (index) => piece.pos + index;
      for (const ref of relationsIn(piece.text, ownership)) {
        const table = ownership.tables[ref.name];
        const shared = ownership.shared[ref.name];
        if (!table && !shared) continue;
        const owner = table ?? shared.owner;
        const allowed = owner === feature || (shared && shared.readers.includes(feature));
        if (!allowed) add(posOf(ref.index), 'foreign-table', `${ref.name} belongs to ${owner}${feature ? `, not ${feature}` : ''}`);
        else if (!STORE_FILE.test(file)) add(posOf(ref.index), 'sql-outside-repository', `${ref.name} is named outside ${feature}'s repository or store`);
      }
      const scope = SCOPE_BY_HAND.exec(piece.text);
      if (scope && file !== SCOPE_FILE) add(posOf(scope.index), 'hand-typed-scope', 'partner_id = $n written by hand; use inScope() and scopeParams()');
    }
    const { query, entity } = calls(source);
    if (!DATABASE_FILES.has(file))
      for (const pos of query) add(pos, 'bare-query', '.query( outside src/common/database.ts; use sql, sqlOne, returning or affected');
    for (const { pos, method } of entity)
      add(pos, 'typeorm-entity-api', `${method}() reaches a table through TypeORM; write the statement with the SQL helpers`);
  }
  return problems;
}

module.exports = { check };

if (require.main === module) {
  const report = process.argv.includes('--report');
  const ownership = JSON.parse(fs.readFileSync(path.join(__dirname, 'sql-ownership.json'), 'utf8'));
  const problems = check(path.resolve(__dirname, '..'), ownership);
  for (const p of problems) console.log(`${p.where}  ${p.rule}  ${p.message}`);
  if (problems.length) {
    console.log(`\n${problems.length} SQL ownership problem(s)${report ? ' (report only)' : ''}`);
    if (!report) process.exit(1);
  }
}
