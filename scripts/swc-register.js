// Runs TypeScript entry points (search eval, benchmarks) without a build: `node -r ./scripts/swc-register.js file.ts`.
// Compiles each .ts file with swc exactly as jest does (legacy decorators and their metadata, CommonJS).
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

const options = {
  sourceMaps: 'inline',
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};

// Compiled files are kept on disk by a hash of the source, its path, the options and swc's version: the tests start
// the API and the worker as child processes a few dozen times a run, and each start compiled the same ~350 files
// again (a sixth of a start's CPU). An unwritable cache directory only means compiling every time.
const CACHE = join(__dirname, '..', 'node_modules', '.cache', 'swc-register');
const salt = JSON.stringify([require('@swc/core/package.json').version, options]);
let cacheWritable = true;

function compile(source, filename) {
  const key = createHash('sha1').update(salt).update('\0').update(filename).update('\0').update(source).digest('hex');
  const file = join(CACHE, `${key}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // not compiled yet
  }
  const { code } = transformSync(source, { ...options, filename });
  if (cacheWritable) {
    try {
      mkdirSync(CACHE, { recursive: true });
      // Written aside and renamed: a process reading the same file at once sees all of it or none.
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, code);
      renameSync(partial, file);
    } catch {
      cacheWritable = false;
    }
  }
  return code;
}

require.extensions['.ts'] = (module, filename) => {
  module._compile(compile(readFileSync(filename, 'utf8'), filename), filename);
};
