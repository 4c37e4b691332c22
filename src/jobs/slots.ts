import type { ClaimFilter, KindClaim } from './jobs.store.ts';

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
  /** Slots of a kind that jobs of the group may still take: its room, where the kind has shares. */
  freeFor(kind: string, group: string | null): number;
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

  function free(kind: string): number {
    return Math.max(0, limitsOf(kind).concurrency - (byKind.get(kind) ?? 0));
  }

  /** The room left to each group of the kind that holds slots now. */
  function roomsOf(kind: string, perGroup: number): KindClaim['rooms'] {
    const rooms: Array<{ group: string; room: number }> = [];
    for (const [key, taken] of byGroup) {
      const [ofKind = '', group = ''] = JSON.parse(key) as string[];
      if (ofKind === kind) rooms.push({ group, room: Math.max(0, perGroup - taken) });
    }
    return rooms;
  }

  function kindClaim(kind: string): KindClaim {
    const { perGroup } = limitsOf(kind);
    const limit = free(kind);
    return perGroup === undefined
      ? { kind, limit, rooms: [] }
      : { kind, limit, perGroup, rooms: roomsOf(kind, perGroup) };
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
    freeFor(kind, group) {
      const { perGroup } = limitsOf(kind);
      if (group === null || perGroup === undefined) return free(kind);
      return Math.min(free(kind), Math.max(0, perGroup - (byGroup.get(groupKey(kind, group)) ?? 0)));
    },
    freeIn: (kinds) => kinds.reduce((sum, kind) => sum + free(kind), 0),
    claimFilter(kinds) {
      return { kinds: kinds.map(kindClaim).filter(({ limit }) => limit > 0) };
    },
  };
}
