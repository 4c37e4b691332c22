import type { Result } from 'autocannon';

export interface Measured {
  scenario: string;
  result: Result;
  /** Server CPU time per answered request; null where /proc is not available. */
  cpuUsPerRequest: number | null;
}

/** Below this share of the baseline's requests/s, `GET /me` misses the goal the issue set. */
export const ME_GOAL_RATIO = 0.5;

function ratioTo(baseline: Result, result: Result): number {
  return baseline.requests.mean > 0 ? result.requests.mean / baseline.requests.mean : 0;
}

function formatRow(cells: readonly string[], widths: readonly number[]): string {
  // The scenario name reads best left-aligned, the numbers right-aligned.
  return cells
    .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
    .join('  ');
}

export function formatTable(measured: readonly Measured[], baseline: Result): string {
  const header = [
    'scenario',
    'req/s (mean)',
    'p50 ms',
    'p99 ms',
    'vs baseline',
    'server CPU µs/req',
    'non-2xx',
    'errors',
  ];
  const rows = measured.map(({ scenario, result, cpuUsPerRequest }) => [
    scenario,
    result.requests.mean.toFixed(0),
    result.latency.p50.toFixed(1),
    result.latency.p99.toFixed(1),
    `${ratioTo(baseline, result).toFixed(2)}x`,
    cpuUsPerRequest === null ? 'n/a' : cpuUsPerRequest.toFixed(0),
    String(result.non2xx),
    String(result.errors),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [formatRow(header, widths), rule, ...rows.map((row) => formatRow(row, widths))].join('\n');
}

/** One line per scenario that had a non-2xx answer or a connection error; empty when the run is clean. */
export function failuresOf(measured: readonly Measured[]): string[] {
  return measured
    .filter(({ result }) => result.non2xx > 0 || result.errors > 0)
    .map(({ scenario, result }) => {
      const codes = Object.entries(result.statusCodeStats)
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, { count }]) => `${code}: ${count}`)
        .join(', ');
      return `${scenario}: ${result.non2xx} non-2xx (${codes || 'none'}), ${result.errors} errors, ${result.timeouts} timeouts`;
    });
}

/**
 * The load generator shares the machine and can saturate before the bare server does, which flatters
 * the req/s ratio; the ratio of server CPU per request does not depend on it, so it is shown beside.
 */
export function goalLine(me: Measured, baseline: Measured): string {
  const ratio = ratioTo(baseline.result, me.result);
  const verdict = ratio >= ME_GOAL_RATIO ? 'holds' : 'DOES NOT hold';
  const cpuRatio =
    me.cpuUsPerRequest && baseline.cpuUsPerRequest
      ? `; by server CPU per request ${(baseline.cpuUsPerRequest / me.cpuUsPerRequest).toFixed(2)}x`
      : '';
  return `Goal GET /me >= ${ME_GOAL_RATIO}x baseline req/s on SQLite: ${verdict} (${ratio.toFixed(2)}x${cpuRatio})`;
}

export function formatMegabytes(kb: number | null): string {
  return kb === null ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`;
}
