import { BASIS_POINTS, centsOfMicros, commissionCents, rateInBasisPoints } from '../../lib/money.ts';

/** A payout in cents: the amount earned, the commission kept, and the rest credited to the label. */
export interface Payout {
  readonly amountCents: number;
  readonly commissionRate: number;
  readonly commissionCents: number;
  readonly netCents: number;
}

/** Revenue of a label's lines for one month is rounded to cents once, then the commission is taken. */
export function payoutOf(revenueMicros: number, commissionRate: number): Payout {
  const amountCents = centsOfMicros(revenueMicros);
  const commission = commissionCents(amountCents, commissionRate);
  return {
    amountCents,
    commissionRate: rateInBasisPoints(commissionRate) / BASIS_POINTS,
    commissionCents: commission,
    netCents: amountCents - commission,
  };
}

/** What a label may draw: earned, less what was paid out and what is being paid out now. */
export interface Balance {
  readonly earnedCents: number;
  readonly withdrawnCents: number;
  readonly processingCents: number;
  readonly availableCents: number;
}

export function balanceOf(sums: { earned: number; paid: number; processing: number }): Balance {
  return {
    earnedCents: sums.earned,
    withdrawnCents: sums.paid,
    processingCents: sums.processing,
    availableCents: sums.earned - sums.paid - sums.processing,
  };
}
