// ESLint (flat config), run by `npm run lint` and `npm test` with zero findings allowed:
// typescript-eslint's type-aware recommended rules over the web app, its Vite config and the
// e2e specs (each file typed by the tsconfig that owns it), promises handled, no `any`, and the
// React hooks rules.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['web/dist/**', 'web/src/generated/**', 'web/src/engine/contract.gen.ts', 'e2e/artifacts/**', 'node_modules/**', 'target/**'],
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'web/vite.config.ts', 'e2e/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['web/tsconfig.json', 'web/tsconfig.worker.json', 'web/tsconfig.node.json'],
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.browser },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['web/src/engine/engine.worker.ts', 'web/src/engine/import_worker.ts'],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    files: ['web/vite.config.ts', 'web/src/**/*.test.ts', 'e2e/**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
  },
);
