import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'db/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
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
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
