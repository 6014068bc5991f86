// ESLint over every JS file of the repo (npm run lint). js.configs.recommended, plus the rules
// that catch real bugs in this kind of code (loose equality, a value returned from a Promise
// executor, a loop that cannot end or never loops, unused code), and at most 120 lines a function
// in web/src (blank and comment lines not counted); formatting is Prettier's job.
// Globals by where the code runs: the page (browser), the Workers (compute/, *-job.js), Node
// (build scripts, configs, tests) and both (the engine's JS face).
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: [
      'dist/',
      'build/',
      'node_modules/',
      'web/generated/',
      'tests/output/',
      'tests/fuzz/',
      '**/*.min.js',
    ],
  },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      eqeqeq: ['error', 'smart'],
      'no-implicit-globals': 'error',
      'no-promise-executor-return': 'error',
      'no-self-compare': 'error',
      'no-template-curly-in-string': 'error',
      'no-unmodified-loop-condition': 'error',
      'no-unreachable-loop': 'error',
      'array-callback-return': ['error', { checkForEach: false }],
      'no-constructor-return': 'error',
      'no-new-wrappers': 'error',
      'no-throw-literal': 'error',
      'no-useless-call': 'error',
      'no-var': 'error',
    },
  },
  { files: ['web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  // A function of the page fits one screen: longer ones are cut into named parts.
  {
    files: ['web/src/**/*.js'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['web/src/engine/**/*.js', 'web/src/offline/engine.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  {
    files: ['web/src/compute/**/*.js', 'web/src/**/*-job.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: ['build-scripts/**/*.{js,mjs}', '*.{js,mjs,cjs}', '.dependency-cruiser.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  // Scripts that drive a browser hand it functions (page.evaluate): browser globals there too.
  {
    files: ['build-scripts/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  // Tests run in Node and hand functions to the browser (page.evaluate): both sets of globals.
  { files: ['tests/**/*.{js,mjs}'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
];
