import type { Result } from 'autocannon';

/** One timed load of one scenario. */
export interface Round {
  result: Result;
  /** Server CPU time spent during the round; null where /proc is not available. */
  cpuMs: number | null;
}

/** A scenario's rounds; the scenarios take turns round by round, so drift on the machine hits them alike. */
export interface Measured {
  scenario: string;
  /** The status every answer must have: 200, or 302 for a redirect (autocannon counts 3xx as non-2xx). */
  status: number;
  rounds: Round[];
}

/** Below this share of the baseline's requests/s, `GET /me` misses the goal the issue set. */
export const ME_GOAL_RATIO = 0.5;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export function requestsPerSecond(measured: Measured): number {
  return sum(measured.rounds.map(({ result }) => result.requests.mean)) / measured.rounds.length;
}

/** Server CPU per answered request over all rounds; null without /proc. */
export function cpuUsPerRequest(measured: Measured): number | null {
  const cpu = measured.rounds.map(({ cpuMs }) => cpuMs);
  if (cpu.some((ms) => ms === null)) return null;
  const requests = sum(measured.rounds.map(({ result }) => result.requests.total));
  return requests > 0 ? (sum(cpu.map(Number)) * 1000) / requests : null;
}

/** Each round's requests/s against the baseline's in the same round. */
function roundRatios(measured: Measured, baseline: Measured): number[] {
  return measured.rounds.map(({ result }, i) => {
    const base = baseline.rounds[i]?.result.requests.mean ?? 0;
    return base > 0 ? result.requests.mean / base : 0;
  });
}

/**
 * `goal: <name> >= <goal>x <reference>: PASS|FAIL (<ratio>)`, where the ratio is the median of the
 * rounds' ratios, each against the reference's rate in the same round.
 */
export function ratioGoalLine(measured: Measured, reference: Measured, goal: number): string {
  const ratio = median(roundRatios(measured, reference));
  const verdict = ratio >= goal ? 'PASS' : 'FAIL';
  return `goal: ${measured.scenario} >= ${goal}x ${reference.scenario}: ${verdict} (${ratio.toFixed(2)})`;
}

/** The median of the rounds' ratios of `measured` to `reference`, as `0.71x`. */
export function formatRatio(measured: Measured, reference: Measured): string {
  return `${median(roundRatios(measured, reference)).toFixed(2)}x`;
}

/** Answers of another status than the scenario's own; autocannon's `non2xx` would count a 302 too. */
function unexpectedAnswers(result: Result, status: number): number {
  return Object.entries(result.statusCodeStats)
    .filter(([code]) => Number(code) !== status)
    .reduce((total, [, { count }]) => total + count, 0);
}

/** The answers of the scenario's own status over all rounds. */
export function expectedAnswers(measured: Measured): number {
  return sum(measured.rounds.map(({ result }) => result.statusCodeStats[measured.status]?.count ?? 0));
}

/** The value at or below which `p` per cent of the sorted values lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** A plain-text table: the first column (the scenario) left-aligned, the numbers right-aligned. */
export function formatGrid(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((cells) => (cells[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function formatTable(measured: readonly Measured[], baseline: Measured): string {
  const header = [
    'scenario',
    'req/s (mean)',
    'p50 ms',
    'p99 ms',
    'vs baseline',
    'server CPU µs/req',
    'unexpected status',
    'errors',
  ];
  const rows = measured.map((m) => {
    const cpu = cpuUsPerRequest(m);
    return [
      m.scenario,
      requestsPerSecond(m).toFixed(0),
      median(m.rounds.map(({ result }) => result.latency.p50)).toFixed(1),
      median(m.rounds.map(({ result }) => result.latency.p99)).toFixed(1),
      `${median(roundRatios(m, baseline)).toFixed(2)}x`,
      cpu === null ? 'n/a' : cpu.toFixed(0),
      String(sum(m.rounds.map(({ result }) => unexpectedAnswers(result, m.status)))),
      String(sum(m.rounds.map(({ result }) => result.errors))),
    ];
  });
  return formatGrid(header, rows);
}

/**
 * One line per scenario that had an answer of another status than its own or a connection error;
 * empty when the run is clean.
 */
export function failuresOf(measured: readonly Measured[]): string[] {
  const lines: string[] = [];
  for (const { scenario, status, rounds } of measured) {
    for (const { result } of rounds) {
      const unexpected = unexpectedAnswers(result, status);
      if (unexpected === 0 && result.errors === 0) continue;
      const codes = Object.entries(result.statusCodeStats)
        .filter(([code]) => Number(code) !== status)
        .map(([code, { count }]) => `${code}: ${count}`)
        .join(', ');
      lines.push(
        `${scenario}: ${unexpected} answers not ${status} (${codes || 'none'}), ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
  }
  return lines;
}

/**
 * The verdict is the median of the rounds' ratios, each taken against the baseline of its own round;
 * the rounds are listed, and so is the ratio of server CPU per request, which does not depend on
 * whether the load generator, sharing the machine, saturated first.
 */
export function goalLine(me: Measured, baseline: Measured): string {
  const ratios = roundRatios(me, baseline);
  const ratio = median(ratios);
  const verdict = ratio >= ME_GOAL_RATIO ? 'holds' : 'DOES NOT hold';
  const rounds = ratios.map((r) => `${r.toFixed(2)}x`).join(', ');
  const meCpu = cpuUsPerRequest(me);
  const baseCpu = cpuUsPerRequest(baseline);
  const cpuRatio = meCpu && baseCpu ? `; by server CPU per request ${(baseCpu / meCpu).toFixed(2)}x` : '';
  return `Goal GET /me >= ${ME_GOAL_RATIO}x baseline req/s on SQLite: ${verdict} (median ${ratio.toFixed(2)}x of rounds ${rounds}${cpuRatio})`;
}

export function formatMegabytes(kb: number | null): string {
  return kb === null ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`;
}
