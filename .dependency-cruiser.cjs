/**
 * The layers of src/, checked by `npm run check`: lib/ and db/ at the bottom, core/ above them, the
 * modules above core, each used through its index.ts alone, and http/ beside the modules, which
 * knows them only by the types its routes are declared with.
 */
const MODULE_FILE_BUT_INDEX = '^src/modules/[^/]+/(?!index\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'module-private-files',
      severity: 'error',
      comment: "A module's files are private to it: another module imports its index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: MODULE_FILE_BUT_INDEX, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'outside-through-index',
      severity: 'error',
      comment: 'Code outside the modules (app, commands, jobs, http) imports a module through its index.ts.',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: MODULE_FILE_BUT_INDEX },
    },
    {
      name: 'no-own-index',
      severity: 'error',
      comment: "A module's files import each other directly; its index.ts is for the rest of the system.",
      from: { path: '^src/modules/([^/]+)/(?!index\\.ts$)' },
      to: { path: '^src/modules/$1/index\\.ts$' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'No import cycles (type-only imports aside): in a cycle through index files, a module can run ' +
        'before one of its imports is initialised, and the server fails to start.',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'below-the-modules',
      severity: 'error',
      comment: 'core/, db/, lib/ and jobs/ sit below the modules and import none of them.',
      from: { path: '^src/(core|db|lib|jobs)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'db-at-the-bottom',
      severity: 'error',
      comment: 'db/ is the floor: it builds on lib/ and imports nothing of core/, http/ or jobs/.',
      from: { path: '^src/db/' },
      to: { path: '^src/(core|http|jobs)/' },
    },
    {
      name: 'jobs-below-http-and-core',
      severity: 'error',
      comment:
        'The job queue runs handlers the composition root gives it: it knows nothing of requests or the shared lookups.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(core|http)/' },
    },
    {
      name: 'http-knows-module-types-only',
      severity: 'error',
      comment: 'http/ imports no module code: the domain reaches it through the hooks app.ts fills.',
      from: { path: '^src/http/' },
      to: { path: '^src/modules/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'core-on-db-lib-only',
      severity: 'error',
      comment: 'core/ builds on db/, lib/, errors and the clock alone.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: ['^src/(core|db|lib)/', '^src/(errors|clock)\\.ts$'] },
    },
    {
      name: 'lib-stands-alone',
      severity: 'error',
      comment: 'lib/ holds small pure helpers: they import other helpers and packages only.',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages that name their entry points only in `exports` (csv-parse/sync, music-metadata).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
