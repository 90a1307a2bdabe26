/**
 * V8's code cache for the modules jest compiles. Jest gives every test file a fresh module registry, so each file that
 * boots the app compiles the same ~3,300 modules (Nest, TypeORM, BullMQ, the service) again: about a second of CPU per
 * file. Jest compiles them with vm.compileFunction and no cache; with V8's cached data, kept on disk by a hash of the
 * source, a module is deserialised instead of parsed and compiled again. V8 checks the data against the source and
 * its own flags and version, and compiles afresh when they do not match, so stale data is never used.
 */
'use strict';
const vm = require('node:vm');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const CACHE = join(__dirname, '..', '..', 'node_modules', '.cache', 'jest-code-cache');
const MARK = Symbol.for('partner-api.codeCache');

function install() {
  if (vm.compileFunction[MARK]) return;
  const compileFunction = vm.compileFunction;
  // Salted with the engine's version: another Node reads none of this one's data (V8 would reject it anyway).
  const salt = `${process.version}\0${process.arch}\0`;
  let writable = true;
  const cached = function (code, params, options) {
    if (options?.cachedData || options?.produceCachedData || typeof code !== 'string') return compileFunction.call(this, code, params, options);
    const key = createHash('sha1')
      .update(salt)
      .update((params ?? []).join(','))
      .update('\0')
      .update(code)
      .digest('hex');
    const file = join(CACHE, key);
    let data;
    try {
      data = readFileSync(file);
    } catch {
      // not cached yet
    }
    if (data) return compileFunction.call(this, code, params, { ...options, cachedData: data });
    const fn = compileFunction.call(this, code, params, { ...options, produceCachedData: writable });
    if (writable && fn.cachedData) {
      try {
        mkdirSync(CACHE, { recursive: true });
        // Written aside and renamed: the other worker reading the same entry sees all of it or none.
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, fn.cachedData);
        renameSync(partial, file);
      } catch {
        writable = false;
      }
    }
    return fn;
  };
  cached[MARK] = true;
  vm.compileFunction = cached;
}

module.exports = { install };
