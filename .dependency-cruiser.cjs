/**
 * Module boundaries, checked by `npm run lint:deps` (dependency-cruiser). docs/CONVENTIONS.md explains each rule.
 *
 * A feature is a folder under src/ named after a product noun (users/, courses/, api-keys/ …; events/, metrics/ and
 * auth/ count as features too). Infrastructure folders (common/, config/, database/, redis/, cli/) and the top-level
 * wiring files (app.module.ts, main.ts …) are not features: they may import entities, e.g. to register them with TypeORM.
 *
 * What one feature may import from another: its module, its services (and the types and pure functions they export),
 * its decorators, guards and request/response DTO classes. Not its entities, repositories or stores (its tables), controllers,
 * mappers, worker internals, or the helpers kept in its dto/ folder.
 */
const INFRASTRUCTURE = '^src/(common|config|database|redis|cli)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means a boundary is wrong (NestJS @Global and forwardRef hide them at run time). Break it with a narrow service or an event.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-between-folders',
      severity: 'error',
      comment:
        'Two folders that import each other (auth ↔ partners, common ↔ metrics) are one module in disguise, whatever their files do; @Global hides it from Nest. Move the shared piece into a module of its own.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-foreign-entity-or-repository',
      severity: 'error',
      comment:
        "A feature reads another feature's data through that feature's exported service, never through its entity, repository or store (which would let it query the other feature's tables). Stores (`*.store.ts`, `*-store.ts`: OutboxStore, KeyStore, DeliveryStore) are repositories under another name.",
      from: { path: '^src/([^/]+)/', pathNot: INFRASTRUCTURE },
      to: { path: ['^src/[^/]+/.+\\.(entity|repository|store)\\.ts$', '^src/[^/]+/.+-store\\.ts$'], pathNot: ['^src/$1/', INFRASTRUCTURE] },
    },
    {
      name: 'no-foreign-controller-or-mapper',
      severity: 'error',
      comment:
        "A controller is a feature's HTTP edge and a mapper its view of its own rows: another feature gets neither. Something both need (a path-id pipe, a row shape) moves to common/ or behind the owner's service.",
      from: { path: '^src/([^/]+)/', pathNot: INFRASTRUCTURE },
      to: { path: '^src/[^/]+/.+\\.(controller|mapper)\\.ts$', pathNot: ['^src/$1/', INFRASTRUCTURE] },
    },
    {
      name: 'no-foreign-dto-helper',
      severity: 'error',
      comment:
        "Request and response DTO classes (dto/*.dto.ts) are contract shapes another feature may nest; anything else in a dto/ folder (a validator, a transform) is that feature's own. Shared validators live in common/ (e.g. common/iso-timestamp.ts).",
      from: { path: '^src/([^/]+)/', pathNot: INFRASTRUCTURE },
      to: { path: ['^src/[^/]+/dto/', '^src/[^/]+/.+/dto/'], pathNot: ['^src/$1/', INFRASTRUCTURE, '\\.dto\\.ts$'] },
    },
    {
      name: 'no-foreign-worker-internals',
      severity: 'error',
      comment:
        "A feature's worker/ folder (jobs, processors, relays) is wired by its worker module and app.module.ts; another feature enqueues through the owner's service instead.",
      from: { path: '^src/([^/]+)/', pathNot: INFRASTRUCTURE },
      to: { path: ['^src/[^/]+/worker/', '^src/[^/]+/.+/worker/'], pathNot: ['^src/$1/', INFRASTRUCTURE] },
    },
    {
      name: 'common-imports-no-feature',
      severity: 'error',
      comment:
        'common/ is what every feature builds on (envelope, errors, ids, pagination), so it imports no feature: where it must reach one (the error filter counting error codes for metrics) it defines an interface the feature implements.',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/common/' },
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
