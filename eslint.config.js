import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import nx from '@nx/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Which projects may import which; contracts depend on zod alone (in shipped code).
const DEP_CONSTRAINTS = [
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [], allowedExternalImports: ['zod', 'zod/*'] },
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: ['type:contracts'],
    bannedExternalImports: [
      'pg',
      'kysely',
      '@nats-io/*',
      '@nestjs/*',
      'node:fs',
      'node:child_process',
      'fs',
      'child_process',
    ],
  },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:lib'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:lib'] },
  {
    sourceTag: 'type:service',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:lib', 'type:testing'],
  },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:lib', 'type:testing'] },
  { sourceTag: 'type:bench', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:lib', 'type:testing'] },
  { sourceTag: 'type:deploy', onlyDependOnLibsWithTags: [] },
];

// Test tooling a whitelisted project (contracts) may import from its specs and test helpers.
const TEST_IMPORTS = ['@jest/globals', 'fast-check'];

function moduleBoundaries(depConstraints) {
  return ['error', { enforceBuildableLibDependency: true, allow: [], depConstraints }];
}

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.rloop/**',
      '**/.nx/**',
      'coverage/**',
      'bench/.out/**',
      'examples/**/fixtures/**',
      'bench/critics/corpus/**',
      'libs/critics/src/codemods/__fixtures__/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-deprecated': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use an `as const` object and a derived union instead of an enum.' },
      ],
      '@nx/enforce-module-boundaries': moduleBoundaries(DEP_CONSTRAINTS),
    },
  },
  {
    // Specs and their helpers may also use the test tooling and @rloop/testing.
    files: ['**/*.spec.ts', '**/*.arbitraries.ts', '**/*.test-helpers.ts', '**/__fixtures__/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@nx/enforce-module-boundaries': moduleBoundaries(
        DEP_CONSTRAINTS.map((c) => ({
          ...c,
          onlyDependOnLibsWithTags: [...new Set([...c.onlyDependOnLibsWithTags, 'type:testing'])],
          ...(c.allowedExternalImports
            ? { allowedExternalImports: [...c.allowedExternalImports, ...TEST_IMPORTS] }
            : {}),
        })),
      ),
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
  {
    // The console's page runs in a browser.
    files: ['services/console/src/web/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
