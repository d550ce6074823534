import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'db/', 'coverage/', 'dist/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // drizzle updates and deletes must always say which rows
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(run|all|get|execute)$/] > MemberExpression.callee > CallExpression.object[callee.property.name='set'] > MemberExpression.callee > CallExpression.object[callee.property.name='update']",
          message: 'drizzle update without .where(): say which rows',
        },
        {
          selector: "CallExpression[callee.property.name=/^(run|all|get|execute)$/] > MemberExpression.callee > CallExpression.object[callee.property.name='delete'][arguments.length=1]",
          message: 'drizzle delete without .where(): say which rows',
        },
        {
          // `z` as a named import is zod's whole namespace object, all 40-odd locales included: the
          // server's bundle carried 430 KB it never runs and read them at every start.
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier",
          message: "import zod as a namespace (import * as z from 'zod'), so the build leaves out what is not used",
        },
      ],
    },
  },
  // The web app (web/, its own tsconfig with DOM and JSX): the rules of hooks, and no server code
  // beyond the router's types.
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/src/**'], allowTypeImports: true, message: 'the web app takes only types from the server (the AppRouter)' }] },
      ],
    },
  },
  // The layers point one way: doors (rest/, trpc/, public/, cli/) and jobs call the domain; the
  // domain never reaches back up, so a wrong arrow fails `npm test` (docs/architecture.md).
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/trpc/**', '**/rest/**', '**/public/**', '**/cli/**', '**/jobs/**', '**/demo/**', '**/web/**', '**/exports/**', '**/ops/**'], message: 'the domain must not import a door, a job, the demo or the operators\' endpoints' },
            { group: ['**/mail/worker*', '**/server*', '**/services*', '**/main*'], message: 'the domain must not import process-wide services or the mail worker' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/workspaces/**/*.ts', 'src/db/**/*.ts', 'src/pdf/**/*.ts', 'src/mail/outbox.ts', 'src/mail/transport.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/trpc/**', '**/rest/**', '**/public/**', '**/cli/**', '**/jobs/**', '**/demo/**', '**/server*', '**/mail/worker*'], message: 'a lower layer must not import a door or a job' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/workspaces/**/*.ts', 'src/db/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/domain/**', '**/trpc/**', '**/rest/**', '**/jobs/**', '**/mail/**', '**/server*', '**/services*'], message: 'files and tables know nothing of the domain above them' }] },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain Node.js scripts (the bin, the build): Node's globals.
    files: ['bin/**/*.js', 'scripts/**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly', clearTimeout: 'readonly', console: 'readonly', fetch: 'readonly', performance: 'readonly', process: 'readonly', setTimeout: 'readonly' } },
  },
);
