import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { PageQuery, pageOf, pageResponse } from '../../http/pagination.ts';
import { authOf } from '../../http/request-context.ts';
import {
  CountriesBody,
  LinesBody,
  LinesQuery,
  PayoutsBody,
  PeriodQuery,
  PlatformsBody,
  StatementsBody,
  SummaryBody,
  WithdrawalsBody,
} from './finance.schemas.ts';
import {
  countryTotals,
  type FinanceReader,
  financeSummary,
  linePage,
  monthlyStatements,
  payoutPage,
  periodRange,
  platformTotals,
  withdrawalPage,
} from './finance.service.ts';
import { dspKey } from './statement.parser.ts';

const FIGURES =
  "Amounts are US dollars. Figures come from the distributor's royalty statements; until the first one the " +
  'lists are empty and the response carries `note`. A sandbox key reads invented figures, the same on every call, never the real ones.';

function readerOf(request: FastifyRequest): FinanceReader {
  const auth = authOf(request);
  return { workspace: auth.workspace, terms: auth.terms };
}

export function financeRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/finance/summary',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'getFinanceSummary',
          summary: 'Balance, terms, open withdrawals and the latest payouts',
          description: `The balance is earned (payouts after commission) minus withdrawn (withdrawals paid) minus withdrawals in processing, for the label as a whole. ${FIGURES}`,
          response: { 200: SummaryBody },
        },
      },
      async (request) => financeSummary(ctx, readerOf(request)),
    );

    app.get(
      '/finance/payouts',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'listPayouts',
          summary: 'Payouts, one per royalty statement and month, the latest month first',
          description: `Commission is taken from each payout at the label's rate when the statement is imported. ${FIGURES}`,
          querystring: PageQuery,
          response: { 200: PayoutsBody },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const { total, ...body } = await payoutPage(ctx, readerOf(request), page);
        return { ...body, ...pageResponse(request, reply, ctx.config.baseUrl, page, total) };
      },
    );

    app.get(
      '/finance/withdrawals',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'listWithdrawals',
          summary: 'Withdrawal requests, the newest first',
          description: `Each moves \`pending\` -> \`processing\` -> \`paid\` or \`rejected\`. ${FIGURES}`,
          querystring: PageQuery,
          response: { 200: WithdrawalsBody },
        },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const { total, ...body } = await withdrawalPage(ctx, readerOf(request), page);
        return { ...body, ...pageResponse(request, reply, ctx.config.baseUrl, page, total) };
      },
    );

    app.get(
      '/finance/platforms',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'listFinancePlatforms',
          summary: 'Quantity and revenue per platform, the largest revenue first',
          description: `Revenue before commission, over the months \`from\`..\`to\` (all by default). ${FIGURES}`,
          querystring: PeriodQuery,
          response: { 200: PlatformsBody },
        },
      },
      async (request) => platformTotals(ctx, readerOf(request), periodRange(request.query)),
    );

    app.get(
      '/finance/countries',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'listFinanceCountries',
          summary: 'Quantity and revenue per country (ISO 3166-1 alpha-2), the largest revenue first',
          description: `Revenue before commission, over the months \`from\`..\`to\` (all by default). ${FIGURES}`,
          querystring: PeriodQuery,
          response: { 200: CountriesBody },
        },
      },
      async (request) => countryTotals(ctx, readerOf(request), periodRange(request.query)),
    );

    app.get(
      '/finance/statements',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'listFinanceStatements',
          summary: 'One entry per month: quantity, revenue, commission and the amount credited',
          description: `Over the months \`from\`..\`to\` (all by default), the latest first. ${FIGURES}`,
          querystring: PeriodQuery,
          response: { 200: StatementsBody },
        },
      },
      async (request) => monthlyStatements(ctx, readerOf(request), periodRange(request.query)),
    );

    app.get(
      '/finance/lines',
      {
        config: { access: 'finance:read' },
        schema: {
          tags: ['finance'],
          operationId: 'listFinanceLines',
          summary:
            'Royalty statement lines, the latest month first; filter by release, platform, country and months',
          description: `\`from\` and \`to\` take a month or a date (its month); both ends are included. ${FIGURES}`,
          querystring: LinesQuery,
          response: { 200: LinesBody },
        },
      },
      async (request, reply) => {
        const { query } = request;
        const page = pageOf(query);
        const filters = {
          ...periodRange(query),
          releaseId: query.release_id,
          dsp: query.dsp === undefined ? undefined : dspKey(query.dsp),
          country: query.country?.toUpperCase(),
        };
        const { total, ...body } = await linePage(ctx, readerOf(request), filters, page);
        return { ...body, ...pageResponse(request, reply, ctx.config.baseUrl, page, total) };
      },
    );
  };
}
