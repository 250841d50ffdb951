// @triage/client: report errors to a Triage service and read its records,
// from Node (20 and later) and browsers. See ../README.md.

export { TriageClient, newIdempotencyKey } from './client.js';
export type { CallOptions, ClientOptions, ReportOptions, RetryOptions } from './client.js';
export { TriageProblem, isTriageProblem, parseRetryAfter, readProblem } from './problem.js';
export type { FieldError } from './problem.js';
export type * from './types.js';
export type { components, operations, paths } from './api.gen.js';
