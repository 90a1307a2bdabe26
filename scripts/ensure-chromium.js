#!/usr/bin/env node
// `pretest`: the browser tests drive a system Chromium through playwright-core. Finds it (CHROMIUM_PATH, or
// chromium / chromium-browser / google-chrome on PATH); when missing, installs Debian's package if this user may
// (root, or sudo without a password), otherwise stops with one line saying what to do. Never a silent skip.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { accessSync, constants } = require('node:fs');

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function find() {
  if (process.env.CHROMIUM_PATH) return executable(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  for (const name of CANDIDATES) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return null;
}

function fail(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

let path = find();
if (!path && !process.env.CHROMIUM_PATH) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = !root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (hasApt && (root || sudo)) {
    process.stderr.write("Chromium is missing (the browser tests need it): installing Debian's chromium package…\n");
    const prefix = root ? [] : ['sudo', '-n'];
    const run = (args) =>
      execFileSync(prefix[0] ?? args[0], prefix.length ? [...prefix.slice(1), ...args] : args.slice(1), {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    try {
      run(['apt-get', 'update', '-qq']);
      run(['apt-get', 'install', '-y', '-qq', 'chromium']);
    } catch {
      fail('Chromium could not be installed: run `apt-get install chromium` (or set CHROMIUM_PATH to a Chromium or Chrome binary), then npm test again.');
    }
    path = find();
  }
}
if (!path) {
  fail(
    process.env.CHROMIUM_PATH
      ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable: point it at a Chromium or Chrome binary.`
      : 'The browser tests need Chromium: run `sudo apt-get install chromium` (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium or Chrome binary, then npm test again.',
  );
}
