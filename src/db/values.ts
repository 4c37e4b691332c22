/**
 * The words a text column may hold where it holds one of a few (statuses, kinds, themes). They are
 * facts about stored rows, so they live here beside the Database type, below the modules; a module's
 * schemas and rules take its lists from here. Each list is in the order the API documents it (the
 * OpenAPI enums are built from these lists).
 */

/** The four plans of the contract, in ascending order. */
export const PLAN_KEYS = ['start', 'label', 'pro', 'enterprise'] as const;
export type PlanKey = (typeof PLAN_KEYS)[number];

export const ROLE_NAMES = ['owner', 'admin', 'manager', 'editor', 'accountant', 'viewer'] as const;
export type Role = (typeof ROLE_NAMES)[number];

/** An idempotency key is `running` until its response is stored, then `done`. */
export type IdempotencyState = 'running' | 'done';

export const RELEASE_TYPES = ['single', 'ep', 'album'] as const;
export type ReleaseType = (typeof RELEASE_TYPES)[number];

export const RELEASE_STATUSES = ['draft', 'submitting', 'submitted', 'live', 'failed', 'takedown'] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A release's stage on one platform. */
export const DSP_STAGES = ['submitted', 'accepted', 'live', 'rejected', 'failed', 'taken_down'] as const;
export type DspStage = (typeof DSP_STAGES)[number];

export type CoverFormat = 'jpeg' | 'png';

export type AudioFormat = 'wav' | 'flac';

export const EVENT_NAMES = [
  'release.review_pending',
  'release.approved',
  'release.rejected',
  'release.submitted',
  'release.dsp_status',
  'release.live',
  'presave.signup',
  'support.replied',
  'webhook.test',
  'webhook.failing',
] as const;
export type EventKind = (typeof EVENT_NAMES)[number];

export const SUPPORT_REQUEST_TYPES = ['takedown', 'message'] as const;
export type SupportRequestType = (typeof SUPPORT_REQUEST_TYPES)[number];

/**
 * Where a request stands: `pending` until support acts on it; a takedown request becomes
 * `approved` when the operator orders the takedown and `completed` once every platform reported
 * the release taken down; a message becomes `answered` with its reply.
 */
export const SUPPORT_REQUEST_STATUSES = ['pending', 'approved', 'completed', 'answered'] as const;
export type SupportRequestStatus = (typeof SUPPORT_REQUEST_STATUSES)[number];

export const THEMES = ['auto', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** What a smart link's daily breakdown counts by. */
export type Dimension = 'source' | 'device' | 'language' | 'hour' | 'platform';

/** `pending` -> `processing` -> `paid` | `rejected`, set by the operator. */
export const WITHDRAWAL_STATUSES = ['pending', 'processing', 'paid', 'rejected'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
