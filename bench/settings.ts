// Bench settings come from BENCH_* variables; a bad value stops the run before any work starts.

function rawSetting(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

export function positiveNumber(name: string, fallback: number): number {
  const raw = rawSetting(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

export function positiveInteger(name: string, fallback: number): number {
  const raw = rawSetting(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return value;
}

export type BenchEngine = 'sqlite' | 'postgres';

/** BENCH_ENGINES: which engines a bench that runs both runs, in that order (`sqlite,postgres`). */
export function benchEngines(): BenchEngine[] {
  const raw = process.env.BENCH_ENGINES || 'sqlite,postgres';
  const names = raw.split(',').map((name) => name.trim());
  const engines = names.filter((name): name is BenchEngine => name === 'sqlite' || name === 'postgres');
  if (engines.length === 0 || engines.length !== names.length)
    throw new Error(`BENCH_ENGINES must list sqlite and/or postgres (got "${raw}")`);
  return engines;
}
