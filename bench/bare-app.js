'use strict';
/**
 * The baseline of bench/catalogue.js: a bare NestJS + Express app with one GET route that answers the
 * JSON body in BARE_BODY_FILE (the catalogue's own response, so both send the same bytes), serialised
 * per request like any Nest handler. No guard, no logging, no database.
 * Usage: PORT=4001 BARE_BODY_FILE=/tmp/body.json node bench/bare-app.js
 */
require('reflect-metadata');
const { readFileSync } = require('node:fs');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

const body = JSON.parse(readFileSync(process.env.BARE_BODY_FILE, 'utf8'));

class BareController {
  courses() {
    return body;
  }
}
Get()(BareController.prototype, 'courses', Object.getOwnPropertyDescriptor(BareController.prototype, 'courses'));
Controller('bare')(BareController);

class BareModule {}
Module({ controllers: [BareController] })(BareModule);

async function main() {
  const app = await NestFactory.create(BareModule, { logger: false });
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  app.getHttpAdapter().getInstance().set('etag', false);
  await app.listen(Number(process.env.PORT ?? 4001), '127.0.0.1');
  process.stdout.write('ready\n');
}

main().catch((e) => {
  process.stderr.write(`bare app failed: ${e.stack ?? e}\n`);
  process.exit(1);
});
