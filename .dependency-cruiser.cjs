// The architecture of web/src as rules (npm run lint, npm test): its floors (FLOORS, lowest
// first), each importing only itself and the floors below, and the rules that keep the folders of
// one floor apart. Each rule's comment says why it holds.
// The Emscripten glue as imported, before the build has written it (then it does not resolve).
const GENERATED_GLUE = '(^|/)generated/attnscale-(simd|scalar)\\.mjs$';

// The floors of web/src, lowest first. A module imports its own floor and the floors below it,
// never one above: what is lower is used by more and must not depend on what uses it. A floor is
// a list of path patterns; no file is on two floors.
const FLOORS = [
  {
    name: 'ground',
    why: 'pure data and helpers that run anywhere (the page, the Workers, Node): the URL state over the schema, number formats, the tensor files, the pure helpers, the stylesheets',
    paths: [
      '^web/src/state/',
      '^web/src/ui/format\\.js$',
      '^web/src/tensors/',
      '^web/src/pure/',
      '^web/src/styles/',
    ],
  },
  {
    name: 'ui',
    why: 'the shared UI pieces (DOM helper, theme, controls)',
    paths: ['^web/src/ui/(?!format\\.js$)'],
  },
  { name: 'engine', why: "the engine's JS face, the npm package's entry", paths: ['^web/src/engine/'] },
  {
    name: 'compute',
    why: 'the Workers, their jobs and the client that talks to them',
    paths: ['^web/src/compute/'],
  },
  {
    name: 'charts',
    why: 'the chart helpers the panels share: the uPlot wrapper, the sweep chart and its store',
    paths: ['^web/src/charts/'],
  },
  {
    name: 'export',
    why: "a panel's downloads (PNG, CSV, SVG, GIF): they draw with the charts and start a Worker for a GIF",
    paths: ['^web/src/export/'],
  },
  {
    name: 'frame',
    why: "the frame every chart panel is built in (title, download buttons, legend, readouts) and the sweep panels' scaffold: its buttons load export/ on their first click",
    paths: ['^web/src/frame/'],
  },
  { name: 'panels', why: 'the panels and their registries', paths: ['^web/src/panels/'] },
  {
    name: 'app',
    why: 'createApp and its steps, which every shell mounts',
    paths: ['^web/src/app/'],
  },
  {
    name: 'shells',
    why: "the four shells around createApp: the page (page/: its entry, its folds, model presets and Embed dialog), embed.html's script and the web component (embed/), the offline file (offline/)",
    paths: ['^web/src/page/', '^web/src/embed/', '^web/src/offline/'],
  },
];

// Imports that point up a floor and are allowed by name, each with why.
const UPWARD_ALLOWED = [
  {
    name: 'the-workers-load-the-panels-jobs-through-their-registry',
    comment:
      "compute/ loads a panel's Worker job by its kind from panels/jobs.js, whose modules load on first use: the one door " +
      'through which compute/ reaches a panel, so that a panel with a job is added without touching compute/.',
    floor: 'compute',
    from: '^web/src/compute/job-kinds\\.js$',
    to: '^web/src/panels/jobs\\.js$',
  },
];

/**
 * A rule per floor: its modules import nothing of a floor above. An allowed upward import is left
 * out of its floor's rule, and that module's other imports keep the rule (a second rule of the
 * same name).
 */
function floorRules() {
  return FLOORS.slice(0, -1).flatMap((floor, i) => {
    const above = FLOORS.slice(i + 1).flatMap((f) => f.paths);
    const below = FLOORS.slice(0, i).map((f) => f.name);
    const allowed = UPWARD_ALLOWED.filter((a) => a.floor === floor.name);
    const rule = (from, pathNot) => ({
      name: `no-import-above-${floor.name}`,
      severity: 'error',
      comment:
        `The ${floor.name} floor (${floor.why}) imports its own floor and the floors below it (${below.join(', ') || 'none'}), ` +
        'never one above: what is lower is used by more and must not depend on what uses it (the floors: .dependency-cruiser.cjs FLOORS).',
      from,
      to: pathNot.length ? { path: above, pathNot } : { path: above },
    });
    return [
      rule({ path: floor.paths, pathNot: allowed.map((a) => a.from) }, []),
      ...allowed.map((a) => rule({ path: a.from }, [a.to])),
    ];
  });
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...floorRules(),
    {
      name: 'pure-helpers-import-nothing',
      severity: 'error',
      comment:
        'web/src/pure/ holds helpers that run wherever they are imported (the page, a Worker, Node): they import nothing of web/src but each other.',
      from: { path: '^web/src/pure/' },
      to: { path: '^web/src/', pathNot: '^web/src/pure/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle makes the load order matter and the layers meaningless: a module must be readable, and testable, after what it imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'Every import names a file or an installed package. The virtual: modules are made by the Vite plugins of the build ' +
        '(vite.config.js, build-scripts/lib/vite-offline.js) and exist only there; the benchmark pages import the engine by its ' +
        "URL on the benchmark's server (/web/src/…); the wasm glue (web/generated/) is written by the build, which may not " +
        'have run yet (npm test lints first).',
      from: {},
      to: { couldNotResolve: true, pathNot: ['^virtual:', '^/web/src/', GENERATED_GLUE] },
    },
    {
      name: 'nothing-imports-a-test',
      severity: 'error',
      comment:
        'A test file runs its tests when imported: code that imports one would run them (and depend on what they leave behind).',
      from: {},
      to: { path: '\\.test\\.m?js$' },
    },
    {
      name: 'the-page-imports-no-test-code',
      severity: 'error',
      comment:
        'web/ is what the page and the npm package ship: nothing of tests/ may end up in a bundle or the tarball.',
      from: { path: '^web/' },
      to: { path: '^tests/' },
    },
    {
      name: 'engine-face-imports-nothing-of-the-page',
      severity: 'error',
      comment:
        "web/src/engine/ is the npm package's main entry, run in Node and in Workers: it may import only itself, the generated " +
        'wasm glue and wasm-feature-detect (package.json files lists exactly these).',
      from: { path: '^web/src/engine/' },
      to: {
        pathNot: [
          '^web/src/engine/',
          '^web/generated/',
          GENERATED_GLUE,
          '^node_modules/wasm-feature-detect/',
        ],
      },
    },
    {
      name: 'state-imports-no-dom-module',
      severity: 'error',
      comment:
        'The URL state (schema, presets, training settings) is pure data, tested in Node: it may import only state/ and the number ' +
        'formats (ui/format.js), never a module that touches the DOM.',
      from: { path: '^web/src/state/' },
      to: { pathNot: ['^web/src/state/', '^web/src/ui/format\\.js$'] },
    },
    {
      name: 'charts-import-neither-engine-nor-workers',
      severity: 'error',
      comment:
        'A chart draws what it is given: the shared chart helpers, the panel frame and every panel module (its chart) get their data from the app ' +
        '(mount context, update calls), never by reaching for the engine or the Workers themselves.',
      from: {
        path: ['^web/src/charts/', '^web/src/frame/', '^web/src/panels/'],
        pathNot: ['-job\\.js$', '^web/src/panels/jobs\\.js$'],
      },
      to: { path: ['^web/src/engine/', '^web/src/compute/', '-job\\.js$'] },
    },
    {
      name: 'shared-charts-know-no-panel',
      severity: 'error',
      comment:
        'charts/ and frame/ hold what several panels share; a helper that imported a panel (or the app) would tie every panel to it.',
      from: { path: ['^web/src/charts/', '^web/src/frame/'] },
      to: { path: ['^web/src/(panels|app|page|embed|offline)/'] },
    },
    {
      name: 'a-panel-imports-no-other-panel',
      severity: 'error',
      comment:
        'One feature, one folder: what two panels share goes to charts/ or frame/ (or state/), so that a panel can change, or be left out of an embed, alone.',
      from: { path: '^web/src/panels/([^/]+)/' },
      to: { path: '^web/src/panels/[^/]+/', pathNot: '^web/src/panels/$1/' },
    },
    {
      name: 'shared-ui-knows-no-feature',
      severity: 'error',
      comment:
        'ui/ holds the pieces every part of the page uses (DOM helper, formats, theme, controls); it must not pull in panels, the app or the Workers.',
      from: { path: '^web/src/ui/' },
      to: { path: ['^web/src/(panels|charts|export|frame|app|page|embed|offline|compute|engine)/'] },
    },
    {
      name: 'compute-imports-no-page-code',
      severity: 'error',
      comment:
        "compute/ runs in the Workers (and their client): it reaches the panels' jobs only through their registry " +
        '(panels/jobs.js), and never a module that touches the DOM, the state or the app.',
      from: { path: '^web/src/compute/' },
      to: {
        path: ['^web/src/(ui|charts|export|frame|state|app|page|embed|offline)/', '^web/src/panels/'],
        pathNot: '^web/src/panels/jobs\\.js$',
      },
    },
    {
      name: 'the-plumbing-knows-panels-by-their-registry',
      severity: 'error',
      comment:
        "compute/ and app/ loop over the panels' registries (panels/index.js for the page, panels/jobs.js for the Workers) and " +
        "never import a panel's own module: adding a panel, with or without a job of its own, is its folder and a registry " +
        'line, and changes nothing in the Workers, the engine client or the app.',
      from: { path: ['^web/src/compute/', '^web/src/app/'] },
      to: { path: '^web/src/panels/', pathNot: '^web/src/panels/(index|jobs)\\.js$' },
    },
    {
      name: 'worker-jobs-touch-no-dom',
      severity: 'error',
      comment:
        "A Worker job (compute/jobs/, a panel's *-job.js) runs where there is no DOM: it may not import the UI, the charts or uPlot.",
      from: { path: ['^web/src/compute/jobs/', '-job\\.js$'] },
      to: {
        path: ['^web/src/(ui|charts|export|frame|app|page|embed|offline|state)/', '^node_modules/uplot/'],
      },
    },
  ],
  options: {
    // The packages' own graphs are theirs: an import of a package is checked (resolvable), not followed.
    doNotFollow: { path: 'node_modules' },
    // Emscripten's generated glue (web/generated/) is build output, not source.
    exclude: { path: ['^web/generated/', '^tests/fuzz/', '^tests/output/'] },
    moduleSystems: ['es6', 'cjs'],
    // Vite resolves `?worker&url` / `?inline` suffixes; the resolver here strips them the same way, and the package's
    // export conditions are Node's.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
// For tests/js/repo/import-floors.test.js, out of the configuration's own keys (not enumerable).
Object.defineProperty(module.exports, 'floors', { value: FLOORS });
