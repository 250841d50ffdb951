// The service's documents, as the dashboard reads them: the types
// openapi-typescript generates (@triage/client/api: the TypeScript
// client's api.gen.ts, do not edit; npm run gen in web/apigen) from server/openapi.json, which cmd/openapigen generates
// from the Go types behind the API (go generate ./server). GET /v1/errors
// (triage.Page, triage.RecordSummary), GET /v1/errors/{error_id}
// (triage.Record, triage.Occurrence, triage.JobRecord), the feedback
// (triage.Feedback, triage.Outcome), a report (triage.Report), GET
// /v1/agents (agent.Info) and GET /v1/runs/{run_id} (triage.Run).

import type { components } from '@triage/client/api';

type Schemas = components['schemas'];

export type ErrorType = Schemas['ErrorType'];
export type Severity = Schemas['Severity'];
export type NextAction = Schemas['NextAction'];
/** What a listing says of an error: all occurrences of one fingerprint. */
export type RecordSummary = Schemas['RecordSummary'];
/** A page of GET /v1/errors. */
export type Page = Schemas['Page'];
/** A report as a pipeline agent sent it (its context redacted). */
export type Report = Schemas['Report'];
export type RootCause = Schemas['RootCause'];
/** The retry planned for a query (triage.RetryPlan). */
export type RetryPlan = Schemas['RetryPlan'];
/** The handler's answer to a report. */
export type Feedback = Schemas['Feedback'];
/** What one recovery action did. */
export type Outcome = Schemas['Outcome'];
/** One report of an error, with its feedback and the actions' outcomes. */
export type Occurrence = Schemas['Occurrence'];
/** One attempt at a job: the failed ones, then, for a completed job, the one that succeeded. */
export type JobAttempt = Schemas['JobAttempt'];
/** A durable job (a scheduled retry, an escalation) an occurrence started. */
export type Job = Schemas['Job'];
/** GET /v1/errors/{error_id}. */
export type ErrorRecord = Schemas['Record'];
/** A page of GET /v1/errors/{error_id}/occurrences. */
export type OccurrencePage = Schemas['OccurrencePage'];
/** An agent of the registry (GET /v1/agents). */
export type AgentInfo = Schemas['AgentInfo'];
/** The record of an AG-UI agent run (GET /v1/runs/{run_id}). */
export type Run = Schemas['Run'];
/** The record of an MCP session at /mcp (GET /v1/sessions/{session_id}). */
export type MCPSession = Schemas['MCPSession'];
/** A page of GET /v1/sessions. */
export type MCPSessionPage = Schemas['MCPSessionPage'];
/** A fault's JSON (fault.Payload): a failed run's, a report's. */
export type Fault = Schemas['Fault'];

/** The error types a report may name (triage.ErrorType). */
export const ERROR_TYPES = [
  'input_error',
  'schema_error',
  'query_error',
  'chart_error',
  'system_error',
  'validation_error',
  'unknown',
] as const satisfies readonly ErrorType[];

/** The severities, lowest first (triage.Severity). */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const satisfies readonly Severity[];

/**
 * A job's states: River's, which the service runs its jobs on (the
 * store.Job* constants). cancelled is a failure for good (a 4xx answer, no
 * callback URL), discarded a job whose attempts are exhausted.
 */
export const JOB_STATES = [
  'available',
  'scheduled',
  'pending',
  'running',
  'retryable',
  'completed',
  'cancelled',
  'discarded',
] as const satisfies readonly Job['state'][];

export type JobState = (typeof JOB_STATES)[number];

/** Whether a job in state will run no more (store.JobFinished). */
export function jobFinished(state: string): boolean {
  return state === 'completed' || state === 'cancelled' || state === 'discarded';
}
