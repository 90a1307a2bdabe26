/**
 * Module boundaries, checked by `npm run lint:deps` (dependency-cruiser).
 *
 * A feature is a folder under src/ named after a product noun (users/, courses/, webinars/ …). Infrastructure folders
 * (common/, config/, database/, redis/, cli/) and the top-level wiring files (app.module.ts, main.ts …) are not
 * features: they may import entities, e.g. to register them with TypeORM.
 */
const INFRASTRUCTURE = '^src/(common|config|database|redis|cli)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'warn',
      comment: 'A cycle means a boundary is wrong (NestJS @Global and forwardRef hide them at run time). Break it with a narrow service or an event.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-between-folders',
      severity: 'warn',
      comment:
        'Two folders that import each other (auth ↔ partners, common ↔ metrics) are one module in disguise, whatever their files do; @Global hides it from Nest. Move the shared piece into a module of its own.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-foreign-entity-or-repository',
      severity: 'warn',
      comment:
        "A feature reads another feature's data through that feature's exported service, never through its entity or repository (which would let it query the other feature's tables).",
      from: { path: '^src/([^/]+)/', pathNot: INFRASTRUCTURE },
      to: { path: '^src/[^/]+/.+\\.(entity|repository)\\.ts$', pathNot: ['^src/$1/', INFRASTRUCTURE] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` counts: a type-only import of another feature's entity still couples the two.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/.*\\.d\\.ts$' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
