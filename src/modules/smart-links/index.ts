export { breakdownOfLabel, daysOfLabel, forgetLabelTraffic, topLinksOfLabel } from './label-traffic.store.ts';
export { flushPendingCounts } from './link-counts.ts';
export { linkPagesRoutes } from './link-pages.routes.ts';
export { DEVICES, type Device } from './link-pages.visitor.ts';
export { dailySeries, linkStats, ranked } from './link-stats.service.ts';
export { smartLinkUrl } from './smart-links.addresses.ts';
export { smartLinksRoutes } from './smart-links.routes.ts';
export { readSmartLink, smartLinkPage } from './smart-links.service.ts';
export { disabledSmartLinks, smartLinksOfRelease, smartLinkTotalCount } from './smart-links.store.ts';
