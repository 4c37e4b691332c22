/**
 * The Database type: one interface per table. Timestamps are ISO-8601 text and booleans are
 * integers 0/1 on both engines, so rows read the same from SQLite and PostgreSQL.
 *
 * Longer than 300 lines on purpose: it only declares, one interface per table in the order the
 * migrations create them, and Kysely reads it as one type; a reader looks a table up here by name,
 * and splitting it by module would scatter the tables that the queries join across modules.
 */
import type { ColumnType, Generated } from 'kysely';
import type { Json } from './json-column.ts';
import type {
  AudioFormat,
  CoverFormat,
  Dimension,
  DspStage,
  EventKind,
  IdempotencyState,
  PlanKey,
  ReleaseStatus,
  ReleaseType,
  ReviewStatus,
  Role,
  SupportRequestStatus,
  SupportRequestType,
  Theme,
  WithdrawalStatus,
} from './values.ts';

/**
 * A text column that holds one of the words of `Words` (db/values.ts): rows read back as that
 * union, so no reader narrows them again. Inserts and updates take any string, because the test
 * and bench fixtures seed rows with plain strings; the service writes only words of the union
 * (literals, or values its request schemas checked). Null stays null.
 */
type OneOf<Words extends string | null> = ColumnType<Words, TextOf<Words>, TextOf<Words>>;
type TextOf<Words> = Words extends null ? null : string;

export interface LabelsTable {
  id: Generated<number>;
  name: string;
  slug: string;
  plan: OneOf<PlanKey>;
  contract_signed: number;
  /** Limit name to number (or null for unlimited): Enterprise agreements. */
  limit_overrides: Json<Record<string, number | null>>;
  commission_override: number | null;
  /** Set on a sandbox workspace: the id of the label it belongs to. */
  parent_id: number | null;
  created_at: string;
  /** On a sandbox workspace: when the label's catalog was copied into it (once). */
  sandbox_copied_at: Generated<string | null>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  label_id: number;
  prefix: string;
  key_hash: string;
  /** Scope names (`all` is stored as the ten names). */
  scopes: Json<string[]>;
  sandbox: number;
  /** Addresses and CIDR ranges; null means any address. */
  allow_ips: Json<string[]> | null;
  created_at: string;
  revoked_at: string | null;
  /** Set at most once a minute per key; null until the key's first request. */
  last_used_at: string | null;
}

export interface MembersTable {
  id: Generated<number>;
  label_id: number;
  login: string;
  name: string;
  email: string | null;
  role: OneOf<Role>;
  joined_at: string;
  last_seen_at: string | null;
}

export interface IdempotencyKeysTable {
  api_key_id: number;
  idempotency_key: string;
  request_hash: string;
  state: OneOf<IdempotencyState>;
  status_code: number | null;
  headers: Json<Record<string, string>> | null;
  body: string | null;
  created_at: string;
}

export interface ServiceMarksTable {
  name: string;
  at: string;
}

export interface ArtistsTable {
  id: Generated<number>;
  label_id: number;
  name: string;
  /** The name lowercased: case-insensitive uniqueness and search. */
  name_key: string;
  store_a_url: string | null;
  store_b_url: string | null;
  /** In a sandbox workspace: the id of the label's artist this row copies. */
  copied_from: number | null;
  created_at: string;
  updated_at: string;
}

export interface ReleasesTable {
  id: Generated<number>;
  label_id: number;
  artist_id: number;
  type: OneOf<ReleaseType>;
  title: string;
  title_key: string;
  version: string | null;
  genre: string;
  release_date: string;
  original_release_date: string | null;
  upc: string | null;
  /** `worldwide` or country codes. */
  territories: Json<'worldwide' | string[]>;
  featured_artists: Json<{ name: string }[]>;
  status: OneOf<ReleaseStatus>;
  review_status: OneOf<ReviewStatus | null>;
  review_comment: string | null;
  cover_hash: string | null;
  cover_format: OneOf<CoverFormat | null>;
  cover_width: number | null;
  cover_height: number | null;
  cover_bytes: number | null;
  /** Platform key to address. */
  store_links: Json<Record<string, string>>;
  copied_from: number | null;
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  /** When a platform first reported the release live. */
  live_at: string | null;
}

export interface TracksTable {
  id: Generated<number>;
  label_id: number;
  release_id: number;
  number: number;
  title: string;
  title_key: string;
  version: string | null;
  version_type: string | null;
  isrc: string | null;
  explicit: number;
  instrumental: number;
  language: string | null;
  preview_start_sec: number | null;
  writers: Json<{ name: string; roles: string[] }[]>;
  contributors: Json<{ name: string; role: string }[]>;
  featured: Json<{ name: string }[]>;
  lyrics_text: string | null;
  /** The timed lines (seconds); null for plain text. */
  lyrics_lines: Json<{ time: number; text: string }[]> | null;
  ai_service: string | null;
  /** Element names. */
  ai_elements: Json<string[]> | null;
  audio_hash: string | null;
  audio_format: OneOf<AudioFormat | null>;
  audio_filename: string | null;
  /** bigint: PostgreSQL returns it as a string. */
  audio_bytes: number | string | null;
  duration_sec: number | null;
  sample_rate: number | null;
  bit_depth: number | null;
  channels: number | null;
  copied_from: number | null;
  created_at: string;
  updated_at: string;
  /** The lossy-source analysis of the audio with `audio_hash`; null until its job has run. */
  audio_analysis: Json<AudioAnalysis> | null;
}

/** Evidence that a WAV or FLAC was converted from a lossy file (modules/moderation, moderation.lossy.ts). */
export type LossyEvidence =
  | { readonly kind: 'encoder_tag'; readonly tag: string }
  | { readonly kind: 'lowpass'; readonly cutoffHz: number };

/** What the analysis of one audio file found: none of it holds for a track whose audio has another hash. */
export interface AudioAnalysis {
  readonly audio_hash: string;
  readonly lossy: LossyEvidence | null;
}

export interface ReleaseDspStatusesTable {
  release_id: number;
  label_id: number;
  dsp: string;
  stage: OneOf<DspStage>;
  detail: string | null;
  updated_at: string;
}

export interface ReleaseHistoryTable {
  id: Generated<number>;
  label_id: number;
  release_id: number;
  status: OneOf<ReleaseStatus>;
  review_status: OneOf<ReviewStatus | null>;
  comment: string | null;
  at: string;
}

/** Kept by triggers (migration 0004): a workspace's releases by status, and its tracks. */
export interface ReleaseCountsTable {
  label_id: number;
  status: OneOf<ReleaseStatus>;
  n: number;
}

export interface TrackCountsTable {
  label_id: number;
  n: number;
}

export interface EventsTable {
  id: Generated<number>;
  /** The workspace the event belongs to: a label, or a label's sandbox. */
  label_id: number;
  event: OneOf<EventKind>;
  /** The event's `data`. */
  data: Json<Record<string, unknown>>;
  created_at: string;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** What the job's handler needs. */
  payload: Json<unknown>;
  /** When the job is due; while a worker holds it, the end of its lease. */
  run_at: string;
  attempts: Generated<number>;
  unique_key: string | null;
  created_at: string;
  /** Jobs of a kind with the same key share a fair part of the kind's slots (a label's deliveries). */
  group_key: string | null;
}

export interface WebhooksTable {
  id: Generated<number>;
  /** Always the real label: its sandbox shares the label's webhooks. */
  label_id: number;
  url: string;
  events: Json<EventKind[]>;
  /** AES-256-GCM ciphertext of the signing secret. */
  secret: string;
  active: number;
  consecutive_failures: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  webhook_id: number;
  delivery_id: string;
  event: string;
  attempt: number;
  status: number | null;
  ok: number;
  duration_ms: number;
  error: string | null;
  created_at: string;
  /** The workspace whose event the attempt carried (a sandbox's or its label's); null before 0011. */
  workspace_id: number | null;
  /** The event the attempt carried; null before 0019. */
  event_id: number | null;
}

/** Named counters (assigned UPCs, ISRCs per year); a value is the last number handed out. */
export interface SequencesTable {
  name: string;
  value: number | string;
}

export interface SupportRequestsTable {
  id: Generated<number>;
  label_id: number;
  type: OneOf<SupportRequestType>;
  status: OneOf<SupportRequestStatus>;
  message: string | null;
  release_id: number | null;
  reply: string | null;
  created_at: string;
  updated_at: string;
  /** Platform keys a takedown request names; null: every platform the release is on. */
  dsps: Json<string[]> | null;
}

/** Signatures of inbound distributor reports already applied, kept while a replay would verify. */
export interface DistributorReportSignaturesTable {
  signature: string;
  received_at: string;
}

export interface SmartLinksTable {
  id: Generated<number>;
  label_id: number;
  /** Random, always with a capital letter, so it can never equal a slug (lowercase only). */
  code: string;
  slug: string | null;
  title: string;
  artist_name: string;
  /** Title and artist name lowercased (`searchKey`), for `q`. */
  search_key: string;
  release_date: string;
  release_id: number | null;
  enabled: number;
  theme: OneOf<Theme>;
  accent: string | null;
  cta_text: string | null;
  hide_branding: number;
  views: Generated<number>;
  clicks: Generated<number>;
  presaves: Generated<number>;
  collecting_since: string;
  created_at: string;
  updated_at: string;
}

export interface SmartLinkTargetsTable {
  id: Generated<number>;
  link_id: number;
  label_id: number;
  position: number;
  platform: string;
  url: string;
  clicks: Generated<number>;
}

/** Views and clicks of one link on one UTC day (`YYYY-MM-DD`). */
export interface SmartLinkDaysTable {
  link_id: number;
  label_id: number;
  day: string;
  views: number;
  clicks: number;
}

/**
 * Views (clicks for `platform`) of one link on one UTC day by one value of a dimension: `source`,
 * `device`, `language`, `hour` (`00`-`23`) or `platform`.
 */
export interface SmartLinkBreakdownsTable {
  link_id: number;
  label_id: number;
  day: string;
  dimension: OneOf<Dimension>;
  value: string;
  count: number;
}

/** A label's smart-link views, clicks and pre-saves on one UTC day: its links' counters summed. */
export interface LabelTrafficDaysTable {
  label_id: number;
  day: string;
  views: number;
  clicks: number;
  presaves: number;
}

/**
 * A label's views (clicks for `platform`) on one UTC day by one value of a dimension, as
 * `smart_link_breakdowns` has them per link: at most 100 values of a dimension a day, then `other`.
 */
export interface LabelTrafficBreakdownsTable {
  label_id: number;
  day: string;
  dimension: OneOf<Dimension>;
  value: string;
  count: number;
}

export interface SmartLinkPresavesTable {
  id: Generated<number>;
  link_id: number;
  label_id: number;
  /** HMAC of the normalized address: finds a repeat sign-up without decrypting anything. */
  email_digest: string;
  /** AES-256-GCM ciphertext of the address. */
  email_sealed: string;
  created_at: string;
}

/** A distributor's sales report as imported (`labeldesk finance import`), known by the digest of its bytes. */
export interface RoyaltyStatementsTable {
  id: Generated<number>;
  content_hash: string;
  file_name: string;
  line_count: number;
  matched_count: number;
  /** Millionths of a dollar (PostgreSQL returns bigint as a string). */
  revenue_micros: number | string;
  imported_at: string;
}

/**
 * One sales line matched to a label: `period` is `YYYY-MM`. `statement_id` is null for the
 * invented lines of a sandbox.
 */
export interface RoyaltyLinesTable {
  id: Generated<number>;
  label_id: number;
  statement_id: number | null;
  line_number: number;
  period: string;
  release_id: number | null;
  track_id: number | null;
  upc: string | null;
  isrc: string | null;
  dsp: string;
  country: string;
  quantity: number | string;
  revenue_micros: number | string;
}

/** A sales line no release or track matched: kept for the operator, paid to no one. */
export interface RoyaltyUnmatchedLinesTable {
  id: Generated<number>;
  statement_id: number;
  line_number: number;
  period: string;
  upc: string | null;
  isrc: string | null;
  dsp: string;
  country: string;
  quantity: number | string;
  revenue_micros: number | string;
  reason: string;
}

/** What one statement paid one label for one period, in cents, commission taken at import. */
export interface PayoutsTable {
  id: Generated<number>;
  label_id: number;
  statement_id: number | null;
  number: string;
  period: string;
  amount_cents: number | string;
  commission_rate: number;
  commission_cents: number | string;
  net_cents: number | string;
  applied_at: string;
}

export interface WithdrawalsTable {
  id: Generated<number>;
  label_id: number;
  amount_cents: number | string;
  status: OneOf<WithdrawalStatus>;
  created_at: string;
  updated_at: string;
}

/** Versions of what processes cache about callers, bumped by triggers (migration 0012). */
export interface CacheVersionsTable {
  /** `key:<id>` or `label:<id>`. */
  subject: string;
  version: number;
}

/** Uploads keeping and collections removing one stored object, across processes (media.cleanup.ts). */
export interface MediaLocksTable {
  object_key: string;
  holders: Generated<number>;
  held_until: string;
  collecting_until: string | null;
}

/** A batch of smart-link counts taken from Redis and applied (migration 0017): applied once. */
export interface MemberPasswordsTable {
  member_id: number;
  password_hash: string;
  set_at: string;
}

export interface ConsoleInvitesTable {
  token_digest: string;
  member_id: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ConsoleSessionsTable {
  token_digest: string;
  member_id: number;
  created_at: string;
  last_seen_at: string;
}

export interface ConsoleSignInFailuresTable {
  id: Generated<number>;
  bucket: string;
  failed_at: string;
}

export interface LinkCountBatchesTable {
  token: string;
  applied_at: string;
}

/** The one random name that prefixes this database's Redis keys for counting (migration 0017). */
export interface LinkCountNamespaceTable {
  namespace: string;
}

export interface Database {
  cache_versions: CacheVersionsTable;
  labels: LabelsTable;
  api_keys: ApiKeysTable;
  members: MembersTable;
  idempotency_keys: IdempotencyKeysTable;
  service_marks: ServiceMarksTable;
  artists: ArtistsTable;
  releases: ReleasesTable;
  tracks: TracksTable;
  release_dsp_statuses: ReleaseDspStatusesTable;
  release_history: ReleaseHistoryTable;
  release_counts: ReleaseCountsTable;
  track_counts: TrackCountsTable;
  events: EventsTable;
  jobs: JobsTable;
  webhooks: WebhooksTable;
  webhook_attempts: WebhookAttemptsTable;
  sequences: SequencesTable;
  support_requests: SupportRequestsTable;
  distributor_report_signatures: DistributorReportSignaturesTable;
  smart_links: SmartLinksTable;
  smart_link_targets: SmartLinkTargetsTable;
  smart_link_days: SmartLinkDaysTable;
  smart_link_breakdowns: SmartLinkBreakdownsTable;
  smart_link_presaves: SmartLinkPresavesTable;
  label_traffic_days: LabelTrafficDaysTable;
  label_traffic_breakdowns: LabelTrafficBreakdownsTable;
  link_count_batches: LinkCountBatchesTable;
  member_passwords: MemberPasswordsTable;
  console_invites: ConsoleInvitesTable;
  console_sessions: ConsoleSessionsTable;
  console_sign_in_failures: ConsoleSignInFailuresTable;
  link_count_namespace: LinkCountNamespaceTable;
  royalty_statements: RoyaltyStatementsTable;
  royalty_lines: RoyaltyLinesTable;
  royalty_unmatched_lines: RoyaltyUnmatchedLinesTable;
  payouts: PayoutsTable;
  withdrawals: WithdrawalsTable;
  media_locks: MediaLocksTable;
}
