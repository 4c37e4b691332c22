import type { AppContext } from '../context.ts';

/** Runs a command's action with an open context and closes it afterwards. */
export type Run = (action: (ctx: AppContext) => Promise<void>) => Promise<void>;

/** How every command prints: JSON with `--json`, otherwise short human-readable lines. */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(`${json ? JSON.stringify(value, null, 2) : human()}\n`);
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function parseId(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value) || id < 1) throw new Error(`"${value}" is not an id`);
  return id;
}

export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
