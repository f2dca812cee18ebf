import neostandard from 'neostandard'

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
]
