export { financeRoutes } from './finance.routes.ts';
export { type FinanceReader, financeSummary, payoutPage, withdrawalPage } from './finance.service.ts';
export type { ImportReport } from './royalty-import.report.ts';
export { importStatement, unmatchedLines } from './royalty-import.service.ts';
export { createWithdrawal, moveWithdrawal, type WithdrawalOutcome } from './withdrawals.service.ts';
