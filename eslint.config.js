// Lint rules, including the ones that keep dependencies pointing inward:
// src/domain imports nothing of ours outside itself, no I/O library and no cache; src/http never
// reaches an engine file; adapters never touch the store; src/checks and src/quota see no HTTP.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const IO_MODULES = [
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'http',
  'node:http',
  'https',
  'node:https',
  'net',
  'node:net',
  'child_process',
  'node:child_process',
];
const LIBRARIES = ['better-sqlite3', 'better-sqlite3-v12', 'pg', 'kysely', 'fastify', 'ioredis', 'pino'];

export default defineConfig(
  { ignores: ['node_modules/**', 'dist/**', 'data/**', 'bench/corpus/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        fetch: 'readonly',
        Response: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // No import cycles in the product or its benchmarks (the rule follows value imports;
    // test/unit/import-cycles.test.ts checks type-only ones too), and no promise left unhandled.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
    },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...IO_MODULES, ...LIBRARIES, 'lru-cache'].map((name) => ({
            name,
            message: 'src/domain is pure: no I/O, no infrastructure, no cache.',
          })),
          patterns: [
            {
              group: [
                '../../*',
                '../store/*',
                '../http/*',
                '../ingest/*',
                '../cli/*',
                '../node/*',
                '../config*',
              ],
              message: 'src/domain imports nothing of ours outside src/domain.',
            },
          ],
        },
      ],
    },
  },
  {
    // The typed client ships to users: it may use src/domain (the normaliser and digests), never the server.
    files: ['src/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...IO_MODULES, ...LIBRARIES].map((name) => ({
            name,
            message: "src/client runs in users' programs: fetch only, no server libraries.",
          })),
          patterns: [
            {
              group: ['../store/*', '../http/*', '../ingest/*', '../cli/*', '../config*'],
              message: 'src/client imports only itself and src/domain.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['better-sqlite3', 'better-sqlite3-v12', 'pg'].map((name) => ({
            name,
            message: 'The HTTP layer never sees a driver.',
          })),
          patterns: [
            {
              group: ['**/store/engines/*', '**/store/engine*', '**/store/schema*', '**/store/migrations/*'],
              message: 'The HTTP layer uses the store modules, never engine files or tables.',
            },
          ],
        },
      ],
    },
  },
  {
    // The use cases and the quota ledger know no protocol: they throw domain errors, never problem documents.
    files: ['src/checks/**/*.ts', 'src/quota/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fastify', 'better-sqlite3', 'better-sqlite3-v12', 'pg'].map((name) => ({
            name,
            message: 'Use cases see neither HTTP nor a driver.',
          })),
          patterns: [
            {
              group: ['**/http/*', '**/cli/*', '**/store/engines/*', '**/store/engine*', '**/store/schema*'],
              message: 'Use cases use the store modules and src/domain, nothing of HTTP or the CLI.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/ingest/sources/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/store/*', '**/http/*'],
              message: 'A source adapter never touches the database or the API.',
            },
          ],
        },
      ],
    },
  },
);
