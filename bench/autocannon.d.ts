// The package ships no types; this declares only the part of its programmatic API the bench uses.
declare module 'autocannon' {
  export interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
  }

  export interface RequestStep extends RawRequest {
    /** Called before every send of this step; the returned request is the one sent. */
    setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Sends this many requests (and awaits their answers) instead of running for `duration`. */
    amount?: number;
    title?: string;
    headers?: Record<string, string>;
    requests?: RequestStep[];
  }

  /** An HDR histogram summary; latency values are milliseconds, request values are per second. */
  export interface Histogram {
    mean: number;
    p50: number;
    p99: number;
  }

  export interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
