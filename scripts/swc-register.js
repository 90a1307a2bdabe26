// Runs TypeScript entry points (search eval, benchmarks) without a build: `node -r ./scripts/swc-register.js file.ts`.
// Compiles each .ts file with swc exactly as jest does (legacy decorators and their metadata, CommonJS).
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
