import type { ClaimFilter, DueJob } from './jobs.store.ts';

/** How many jobs of a kind one worker runs side by side: a kind that stalls holds its own slots only. */
export interface KindLimits {
  concurrency: number;
  /**
   * Jobs of one group of the kind at most (one label's deliveries), so that a group whose jobs stall
   * leaves the rest of the kind's slots to the others.
   */
  perGroup?: number;
}

/** The jobs a worker runs, counted by kind and by group of a kind, against the kinds' limits. */
export interface Slots {
  limitsOf(kind: string): KindLimits;
  take(kind: string, group: string | null): void;
  release(kind: string, group: string | null): void;
  /** Free slots of a kind. */
  free(kind: string): number;
  /**
   * What a claim may take now: the kinds with free slots, passing over groups at their share, and no
   * more of the candidates than fit. `kinds` are those this worker can run.
   */
  claimFilter(kinds: readonly string[]): ClaimFilter;
  /** Free slots across the kinds, the most a claim may take. */
  freeIn(kinds: readonly string[]): number;
}

function groupKey(kind: string, group: string): string {
  return JSON.stringify([kind, group]);
}

export function createSlots(limitsOf: (kind: string) => KindLimits): Slots {
  const byKind = new Map<string, number>();
  const byGroup = new Map<string, number>();

  function add(counts: Map<string, number>, key: string, change: number): void {
    const count = (counts.get(key) ?? 0) + change;
    if (count === 0) counts.delete(key);
    else counts.set(key, count);
  }

  function free(kind: string, taken: Map<string, number> = byKind): number {
    return Math.max(0, limitsOf(kind).concurrency - (taken.get(kind) ?? 0));
  }

  function groupIsFull(kind: string, group: string, taken: Map<string, number> = byGroup): boolean {
    const { perGroup } = limitsOf(kind);
    return perGroup !== undefined && (taken.get(groupKey(kind, group)) ?? 0) >= perGroup;
  }

  function fullGroups(): ClaimFilter['fullGroups'] {
    return [...byGroup.keys()]
      .map((key) => {
        const [kind = '', group = ''] = JSON.parse(key) as string[];
        return { kind, group };
      })
      .filter(({ kind, group }) => groupIsFull(kind, group));
  }

  /** Takes the candidates in order while their kind has a free slot and their group has room. */
  function choose(candidates: readonly DueJob[]): number[] {
    const kinds = new Map(byKind);
    const groups = new Map(byGroup);
    const chosen: number[] = [];
    for (const job of candidates) {
      if (free(job.kind, kinds) === 0) continue;
      if (job.group_key !== null && groupIsFull(job.kind, job.group_key, groups)) continue;
      add(kinds, job.kind, 1);
      if (job.group_key !== null) add(groups, groupKey(job.kind, job.group_key), 1);
      chosen.push(job.id);
    }
    return chosen;
  }

  return {
    limitsOf,
    take(kind, group) {
      add(byKind, kind, 1);
      if (group !== null) add(byGroup, groupKey(kind, group), 1);
    },
    release(kind, group) {
      add(byKind, kind, -1);
      if (group !== null) add(byGroup, groupKey(kind, group), -1);
    },
    free: (kind) => free(kind),
    freeIn: (kinds) => kinds.reduce((sum, kind) => sum + free(kind), 0),
    claimFilter(kinds) {
      return {
        kinds: kinds.map((kind) => ({ kind, limit: free(kind) })).filter(({ limit }) => limit > 0),
        fullGroups: fullGroups(),
        choose,
      };
    },
  };
}
