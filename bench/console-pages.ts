// The label console's pages for `bench:catalog` (issue 20): each page's server time at catalog
// scale, signed in as the label's owner, and its weight (the HTML with its inline stylesheet).
import type { AppContext } from '../src/context.ts';
import { acceptInvite, createInvite } from '../src/modules/console/index.ts';
import { addMember } from '../src/modules/team/index.ts';
import type { SeededFacts } from './catalog-seed.ts';
import type { Answer, LatencyScenario, Timing } from './latency.ts';

/** Issue 20: every page within this many milliseconds of server time, and under this many bytes. */
export const CONSOLE_GOAL_MS = 50;
export const CONSOLE_WEIGHT_GOAL_BYTES = 100 * 1024;

/** A session of the label's owner, made as a member makes one: an invite, a password. */
export async function ownerSession(ctx: AppContext, labelId: number): Promise<string> {
  const member = await addMember(ctx, { labelId, login: 'bench-owner', name: 'Bench Owner', role: 'owner' });
  const invite = await createInvite(ctx, member.user_id);
  const token = new URL(invite.invite_url).pathname.split('/').at(-1) ?? '';
  const session = await acceptInvite(ctx, token, 'a bench password of some length');
  if (!session) throw new Error('the bench owner could not accept the invite');
  return session;
}

export function consoleScenarios(facts: SeededFacts, releases: number): LatencyScenario[] {
  const lastPage = Math.ceil(releases / 25);
  const page = (name: string, url: (i: number) => string): LatencyScenario => ({
    name: `console ${name}`,
    goalMs: CONSOLE_GOAL_MS,
    url,
  });
  const release = (i: number) => facts.samples[i % facts.samples.length]?.releaseId ?? 0;
  return [
    page('Overview', () => '/console'),
    page('Catalog (page 1)', () => '/console/catalog'),
    page(`Catalog ?page=${lastPage} (last)`, () => `/console/catalog?page=${lastPage}`),
    page('Catalog ?status=live', () => '/console/catalog?status=live'),
    page(
      `Catalog ?q=${facts.words.common}`,
      () => `/console/catalog?q=${encodeURIComponent(facts.words.common)}`,
    ),
    page('a release', (i) => `/console/catalog/${release(i)}`),
    page('Smart links', () => '/console/smart-links'),
    // The pages that read the label's handful of keys, webhooks, payouts, members and requests.
    page('API keys', () => '/console/keys'),
    page('Webhooks', () => '/console/webhooks'),
    page('Finance', () => '/console/finance'),
    page('Team', () => '/console/team'),
    page('Support', () => '/console/support'),
  ];
}

/** The page's weight, for the `found` column. */
export function weightOf(answer: Answer): string {
  if (answer.status !== 200) throw new Error(`a console page answered ${answer.status}`);
  return `${(Buffer.byteLength(answer.body) / 1024).toFixed(1)} KB`;
}

/** Whether every console page weighed under the goal, as their `found` column says. */
export function weightVerdict(timings: readonly Timing[]): string {
  const heavy = timings.filter(
    (timing) => Number.parseFloat(timing.found) * 1024 >= CONSOLE_WEIGHT_GOAL_BYTES,
  );
  return heavy.length === 0 ? 'holds' : `MISSED by ${heavy.map((timing) => timing.scenario.name).join('; ')}`;
}
