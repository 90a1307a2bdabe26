/**
 * A database per test file: a copy of the run's migrated template (test/support/global-setup.ts), made when jest
 * prepares the file's environment and dropped when it tears it down. Plain CommonJS, as the test environment that
 * uses it is loaded before any of jest's transforms apply to test code.
 */
'use strict';
const { createHash } = require('node:crypto');
const { Client } = require('pg');

/** PostgreSQL answers this while another session (an autovacuum worker, say) is connected to the template. */
const OBJECT_IN_USE = '55006';

const quote = (name) => `"${name.replace(/"/g, '""')}"`;
const nameOf = (url) => decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));

/** Runs `work` with a client of the server's maintenance database. */
async function onServer(databaseUrl, work) {
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The file's database and Redis prefix: the run's names plus a short hash of the file's path. */
function fileNames(templateUrl, redisPrefix, testPath) {
  const tag = createHash('sha1').update(testPath).digest('hex').slice(0, 8);
  const url = new URL(templateUrl);
  url.pathname = `/${nameOf(templateUrl)}_${tag}`;
  return { databaseUrl: url.toString(), redisPrefix: `${redisPrefix}-${tag}` };
}

/** CREATE DATABASE … TEMPLATE: a copy of the migrated schema and the imported word vectors in about a second. */
async function cloneTemplate(templateUrl, databaseUrl) {
  await onServer(templateUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quote(nameOf(databaseUrl))} WITH (FORCE)`);
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${quote(nameOf(databaseUrl))} TEMPLATE ${quote(nameOf(templateUrl))}`);
        return;
      } catch (e) {
        if (e.code !== OBJECT_IN_USE || attempt === 5) throw e;
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  });
}

async function dropDatabase(databaseUrl) {
  await onServer(databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quote(nameOf(databaseUrl))} WITH (FORCE)`));
}

module.exports = { fileNames, cloneTemplate, dropDatabase, onServer, quote, nameOf };
