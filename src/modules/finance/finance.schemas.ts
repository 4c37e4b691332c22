import { Type } from 'typebox';
import { WITHDRAWAL_STATUSES } from '../../db/values.ts';
import { PageFields, PageQuery } from '../../http/pagination.ts';
import { DateTime, Id, Nullable, StringEnum } from '../../http/schemas.ts';
import { MONTH_PATTERN } from '../../lib/dates.ts';

const Money = (description: string) => Type.Number({ description: `${description}, in US dollars` });

const Currency = Type.Literal('USD', { description: 'Every amount is in US dollars' });

const Period = Type.String({
  pattern: MONTH_PATTERN,
  description: 'Month, `YYYY-MM`',
  examples: ['2026-03'],
});

/** Present, and every list empty, until the label's first royalty statement. */
const Note = Type.Optional(
  Type.String({
    description: 'Present while the label has had no royalty statement yet: the lists are then empty',
    examples: ['No royalty statement has reached this label yet: figures appear with the first payout.'],
  }),
);

const MonthOrDate = (description: string) =>
  Type.Optional(
    Type.String({
      pattern: '^\\d{4}-\\d{2}(-\\d{2})?$',
      description: `${description}: a month \`YYYY-MM\` or a date \`YYYY-MM-DD\` (its month)`,
      examples: ['2026-01'],
    }),
  );

export const PeriodQuery = Type.Object({
  from: MonthOrDate('First month included'),
  to: MonthOrDate('Last month included'),
});

export const LinesQuery = Type.Object({
  ...PageQuery.properties,
  ...PeriodQuery.properties,
  release_id: Type.Optional(Id),
  dsp: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Platform key, or its name (`Apple Music` is `apple_music`)',
      examples: ['spotify'],
    }),
  ),
  country: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'ISO 3166-1 alpha-2 country code',
      examples: ['DE'],
    }),
  ),
});

const PendingWithdrawal = Type.Object({
  id: Type.Integer(),
  amount: Money('Amount asked for'),
  status: StringEnum(['pending', 'processing'] as const),
  created_at: DateTime,
});

const RecentPayout = Type.Object({
  number: Type.String({ examples: ['202603-000042'] }),
  period: Period,
  amount: Money('Revenue of the period before commission'),
  commission: Money('Commission kept'),
  applied_at: DateTime,
});

export const SummaryBody = Type.Object({
  currency: Currency,
  balance: Type.Object({
    available: Money('Earned, less withdrawn and less withdrawals in processing'),
    earned: Money('Payouts credited, after commission'),
    withdrawn: Money('Withdrawals paid'),
  }),
  label_terms: Type.Object({
    commission_rate: Type.Number({ description: 'Fraction of revenue kept as commission', examples: [0.15] }),
    min_withdrawal: Money('Smallest withdrawal'),
  }),
  pending_withdrawals: Type.Array(PendingWithdrawal, { description: 'Withdrawals not yet paid or rejected' }),
  recent_payouts: Type.Array(RecentPayout, { description: 'The five latest payouts' }),
  note: Note,
});

const PayoutItem = Type.Object({
  number: Type.String({ examples: ['202603-000042'] }),
  period: Period,
  amount: Money('Revenue of the period before commission'),
  commission: Money('Commission kept'),
  net_amount: Money('Amount after commission'),
  credited: Type.Boolean({ description: 'Whether the net amount is in the balance' }),
  applied_at: DateTime,
});

export const PayoutsBody = Type.Object({
  currency: Currency,
  payouts: Type.Array(PayoutItem),
  note: Note,
  ...PageFields,
});

const WithdrawalItem = Type.Object({
  id: Type.Integer(),
  amount: Money('Amount asked for'),
  status: StringEnum(WITHDRAWAL_STATUSES, {
    description: '`pending` -> `processing` -> `paid` or `rejected`',
  }),
  created_at: DateTime,
  updated_at: DateTime,
});

export const WithdrawalsBody = Type.Object({
  currency: Currency,
  withdrawals: Type.Array(WithdrawalItem),
  note: Note,
  ...PageFields,
});

const Share = Type.Number({ description: 'Share of the revenue in the range, in percent (one decimal)' });

export const PlatformsBody = Type.Object({
  currency: Currency,
  platforms: Type.Array(
    Type.Object({
      dsp: Type.String({ examples: ['spotify'] }),
      name: Type.String({ examples: ['Spotify'] }),
      quantity: Type.Integer({ description: 'Streams and downloads' }),
      revenue: Money('Revenue before commission'),
      share_percent: Share,
    }),
  ),
  note: Note,
});

export const CountriesBody = Type.Object({
  currency: Currency,
  countries: Type.Array(
    Type.Object({
      country: Type.String({ description: 'ISO 3166-1 alpha-2', examples: ['DE'] }),
      name: Type.String({ examples: ['Germany'] }),
      quantity: Type.Integer(),
      revenue: Money('Revenue before commission'),
      share_percent: Share,
    }),
  ),
  note: Note,
});

export const StatementsBody = Type.Object({
  currency: Currency,
  statements: Type.Array(
    Type.Object({
      period: Period,
      quantity: Type.Integer(),
      amount: Money('Revenue of the month before commission'),
      commission: Money('Commission kept'),
      net_amount: Money('Credited to the balance'),
      applied_at: DateTime,
    }),
    { description: 'One per month, the latest first' },
  ),
  note: Note,
});

export const LinesBody = Type.Object({
  currency: Currency,
  lines: Type.Array(
    Type.Object({
      id: Type.Integer(),
      period: Period,
      release_id: Nullable(Type.Integer()),
      track_id: Nullable(Type.Integer()),
      upc: Nullable(Type.String()),
      isrc: Nullable(Type.String()),
      dsp: Type.String({ examples: ['spotify'] }),
      country: Type.String({ examples: ['DE'] }),
      quantity: Type.Integer(),
      revenue: Money('Revenue of the line as the statement gives it, to the millionth of a dollar'),
    }),
  ),
  note: Note,
  ...PageFields,
});
