import type pg from 'pg'

/** See floor-transaction.mjs. */
export function floorWrite (client: pg.PoolClient, feature: string, value: string): Promise<string>
