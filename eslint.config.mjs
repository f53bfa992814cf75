// The linter keeps what review cannot: no import cycles, and imports that
// follow the layering (docs/decisions.md, "Layers"). Formatting is Prettier's
// (eslint-config-prettier turns off the rules it owns). The rules run without
// type information, so `npm test` lints the tree in seconds.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';
import { gatewayLayerZones } from './services/gateway/eslint-layers.mjs';

const services = ['gateway', 'identity', 'oauth', 'data', 'playground'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'packages/contracts/src/gen/**',
      '.tools/**',
      '.test-state/**',
      '.test-output/**',
      '.scratch/**',
      '.image/**',
      '.run/**',
      'bench/results/**',
      'coverage/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      // The TypeScript settings of import-x (which files it parses, with which parser): without them it cannot read a
      // .ts module's imports, and no-cycle silently finds nothing.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.test.json'] })],
    },
    rules: {
      // A cycle cannot pass through node_modules, so the rule need not read them.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A leading underscore names what is taken apart on purpose (a field left out of a copy).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            // A service reaches another only through gRPC: never through its source.
            ...services.map((name) => ({
              target: `./services/${name}/src`,
              from: './services',
              except: [`./${name}`],
              message: 'A service reaches another only through its gRPC contract (packages/contracts).',
            })),
            // The browser portal and docs page share rules with the services through packages/contracts only.
            ...['portal', 'docs-page'].map((page) => ({
              target: `./services/gateway/${page}`,
              from: ['./services', './packages/runtime', './packages/launcher'],
              except: [`./gateway/${page}`],
              message: 'Browser code reads shared rules from packages/contracts only.',
            })),
            // The shared packages sit below every service. (The launcher sits above them: it starts them.)
            {
              target: ['./packages/contracts/src', './packages/runtime/src'],
              from: ['./services', './packages/launcher'],
              message: 'packages/contracts and packages/runtime sit below the services and never import them.',
            },
            // Within the gateway, each part imports only from the layers below its own (docs/decisions.md, "The gateway's layers").
            ...gatewayLayerZones,
            // contracts is what both sides of a call agree on: plain data and generated code, no runtime machinery.
            { target: './packages/contracts/src', from: './packages/runtime', message: 'packages/contracts imports nothing of ours.' },
          ],
        },
      ],
    },
  },
  {
    // CommonJS scripts (build steps, the image's health check, jest configs) load modules with require().
    files: ['**/*.cjs', '**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
