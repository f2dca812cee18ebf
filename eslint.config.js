import neostandard from 'neostandard'

/**
 * The UI's rooms (docs/ui.md, "Code"): it takes only types from the server, and constants from
 * src/vocabulary; a feature imports no other feature (screens in app/ compose them); the shared
 * rooms (api/, lib/, components/) import no feature.
 */
const fromServer = {
  regex: '^(\\.\\./)+src/(?!vocabulary/)',
  allowTypeImports: true,
  message: 'web/ takes types from the server (import type) and constants from src/vocabulary/ only: no server code in the bundle.',
}
const restrictImports = (...patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: [fromServer, ...patterns] }],
})
const noFeature = { regex: '(^|/)(features|app)/', message: 'Shared code (api/, lib/, components/) imports no feature and no screen.' }

// One tool for lint and format: `npm run lint` checks, `npm run format` fixes.
export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'bench/results/**', 'coverage/**', 'data/**'],
  }),
  {
    // A TypeBox schema and its Static<> type share a name (`Variant`); TypeScript itself
    // refuses real redeclarations.
    rules: { '@typescript-eslint/no-redeclare': 'off' },
  },
  { files: ['web/**/*.{ts,tsx}'], rules: restrictImports() },
  {
    files: ['web/features/**/*.{ts,tsx}'],
    rules: restrictImports(
      { regex: '^\\.\\./(?!\\.\\./)', message: 'A feature imports no other feature: the screen (web/app/routes/) composes them, and what several share goes to api/, lib/ or components/.' },
      { regex: '(^|/)(features|app)/', message: 'A feature imports no other feature and no screen.' }
    ),
  },
  { files: ['web/components/**/*.{ts,tsx}'], rules: restrictImports(noFeature) },
  { files: ['web/lib/**/*.{ts,tsx}'], rules: restrictImports(noFeature, { regex: '(^|/)components/', message: 'lib/ holds logic and context, below the components.' }) },
  { files: ['web/api/**/*.{ts,tsx}'], rules: restrictImports(noFeature, { regex: '(^|/)(components|lib)/', message: 'api/ is the lowest room of the UI: the client, the keys, the reads and the writes.' }) },
]
