export { analyticsRoutes } from './analytics.routes.ts';
export { labelSummary, type SummaryView } from './analytics.service.ts';
