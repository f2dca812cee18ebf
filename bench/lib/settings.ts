/** The settings every part shares (bench/run.ts lists them all, with the parts' own). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
export const WARM_UP_SECONDS = 4
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
export const SIZES = (process.env.BENCH_SIZES ?? '2,100,400,1000').split(',').map(Number)
/** BENCH_ONLY: the one part to run (all when unset). */
export const ONLY = process.env.BENCH_ONLY
export const SERIES_CONNECTIONS = 4
export const CLIENT_CONNECTIONS = 50
export const FEATURES = 50
export const SECRET = 'bench-admin-secret'
export const PAYLOAD = 'p'.repeat(100)
