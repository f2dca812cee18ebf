import neostandard from 'neostandard'

// One tool for lint and format: `npm run lint` checks, `npm run format` fixes.
export default neostandard({
  ts: true,
  ignores: ['dist/**', 'bench/results/**', 'coverage/**', 'data/**'],
})
