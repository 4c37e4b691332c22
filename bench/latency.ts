// Server latency one request at a time, as the catalog and smart-link benches measure it: a timer
// around each answer, without the queueing a concurrent load generator adds to every request, and
// each row's p99 held to its goal. The bench brings the sender: app.inject in process, or fetch over
// HTTP to a server process.
import { formatGrid, percentile } from './report.ts';

export interface LatencyScenario {
  name: string;
  /** The p99 this row is held to, in ms; null: reported for information. */
  goalMs: number | null;
  url: (i: number) => string;
}

/** One whole answer to a GET. */
export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Sends one GET of `url` (a path and query) and resolves when the whole answer is in. */
export type Send = (url: string) => Promise<Answer>;

export interface Timing {
  scenario: LatencyScenario;
  ms: number[];
  /** What the last answer found, in the bench's words (a total, a count of results). */
  found: string;
}

/** `requests` timed answers after a warm-up that lets V8 optimise the path; every answer must be a 200. */
export async function timeScenario(
  send: Send,
  scenario: LatencyScenario,
  requests: number,
  foundIn: (answer: Answer) => string,
): Promise<Timing> {
  const warmUp = Math.max(20, Math.floor(requests / 10));
  const ms: number[] = [];
  let last: Answer | null = null;
  for (let i = 0; i < warmUp + requests; i++) {
    const url = scenario.url(i);
    const started = performance.now();
    const answer = await send(url);
    const elapsed = performance.now() - started;
    if (answer.status !== 200) {
      throw new Error(`${scenario.name}: ${url} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    }
    if (i >= warmUp) ms.push(elapsed);
    last = answer;
  }
  return { scenario, ms, found: last ? foundIn(last) : '' };
}

function p99Of(timing: Timing): number {
  return percentile(
    [...timing.ms].sort((a, b) => a - b),
    99,
  );
}

function missedGoal(timing: Timing): boolean {
  const { goalMs } = timing.scenario;
  return goalMs !== null && p99Of(timing) >= goalMs;
}

function row(timing: Timing): string[] {
  const sorted = [...timing.ms].sort((a, b) => a - b);
  const { goalMs } = timing.scenario;
  const verdict = goalMs === null ? '' : missedGoal(timing) ? `MISSED (${goalMs})` : `ok (< ${goalMs})`;
  return [
    timing.scenario.name,
    percentile(sorted, 50).toFixed(2),
    percentile(sorted, 99).toFixed(2),
    (sorted.at(-1) ?? 0).toFixed(2),
    timing.found,
    verdict,
  ];
}

export function latencyTable(timings: readonly Timing[]): string {
  return formatGrid(['scenario', 'p50 ms', 'p99 ms', 'max ms', 'found', 'p99 goal ms'], timings.map(row));
}

/** `holds` when every row with a goal met it at p99, or the rows that missed. */
export function goalVerdict(timings: readonly Timing[]): string {
  const missed = timings.filter(missedGoal).map((timing) => timing.scenario.name);
  return missed.length === 0 ? 'holds' : `MISSED by ${missed.join('; ')}`;
}
