// The service's documents, as the dashboard reads them: the JSON of the Go
// types behind GET /v1/errors (store.Page, store.RecordSummary), GET
// /v1/errors/{error_id} (store.Record, store.Occurrence, store.Job),
// the feedback (triage.Feedback, triage.Outcome), a report (triage.Report)
// and GET /v1/agents (agent.Info). server/openapi.json documents them.

/** The error types a report may name (triage.ErrorType). */
export const ERROR_TYPES = [
  'input_error',
  'schema_error',
  'query_error',
  'chart_error',
  'system_error',
  'validation_error',
  'unknown',
] as const;

/** The severities, lowest first (triage.Severity). */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** What a listing says of an error: all occurrences of one fingerprint. */
export interface RecordSummary {
  error_id: string;
  query_id: string;
  agent_id: string;
  error_type: string;
  severity: string;
  first_seen: string;
  last_seen: string;
  occurrence_count: number;
  /** The latest occurrence's next_action (resume, await_user, escalate). */
  next_action?: string;
}

/** A page of GET /v1/errors. */
export interface Page {
  records: RecordSummary[];
  next_cursor?: string;
}

/** A report as a pipeline agent sent it (its context redacted). */
export interface Report {
  agent_id: string;
  timestamp: string;
  status: string;
  data: {
    error_type?: string;
    error_code?: string;
    message: string;
    context?: Record<string, unknown>;
    query_id: string;
    fault?: Record<string, unknown>;
  };
}

export interface RootCause {
  cause: string;
  confidence: number;
  evidence: string[] | null;
}

/** The retry planned for a query (triage.RetryPlan): by "callback", the
 * service posts it to the agent's callback URL when due; by "caller", the
 * pipeline makes it itself, no sooner than delay_seconds. */
export interface RetryPlan {
  attempt: number;
  delay_seconds: number;
  by: 'callback' | 'caller';
}

/** The handler's answer to a report. */
export interface Feedback {
  error_id: string;
  error_type: string;
  error_source: string;
  severity: string;
  confidence: number;
  user_message: string;
  recovery_suggestions: string[] | null;
  automated_actions: string[] | null;
  context_preserved: boolean;
  query_id: string;
  timestamp: string;
  next_action: string;
  root_cause: RootCause;
  attempt: number;
  retry?: RetryPlan;
  fault: { code: string; http_status: number; retryable: boolean; retry_after?: number };
  context?: Record<string, unknown>;
  context_ref?: string;
  duplicate?: boolean;
}

/** What one recovery action did. */
export interface Outcome {
  action: string;
  /** done, skipped or failed. */
  status: string;
  detail: string;
  note?: string;
  suggestions?: string[];
  retry?: RetryPlan;
  error?: string;
  data?: Record<string, unknown>;
}

/** One report of an error, with its feedback and the actions' outcomes. */
export interface Occurrence {
  error_id: string;
  query_id: string;
  agent_id: string;
  error_type: string;
  severity: string;
  next_action: string;
  attempt: number;
  reported_at: string;
  received_at: string;
  report: Report | null;
  feedback: Feedback | null;
  actions?: Outcome[];
}

/**
 * One attempt at a job (store.JobAttempt): the failed ones, then, for a
 * completed job, the one that succeeded.
 */
export interface JobAttempt {
  attempt: number;
  /** When a failed attempt failed, or when the successful one began. */
  at: string;
  /** The successful attempt's duration; a failed attempt has none. */
  duration_ns?: number;
  /** Why the attempt failed; absent for the successful one. */
  error?: string;
}

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
] as const;

export type JobState = (typeof JOB_STATES)[number];

/** Whether a job in state will run no more (store.JobFinished). */
export function jobFinished(state: string): boolean {
  return state === 'completed' || state === 'cancelled' || state === 'discarded';
}

/** A durable job (a scheduled retry, an escalation) an occurrence started. */
export interface Job {
  id: number;
  kind: string;
  error_id: string;
  payload: unknown;
  /** One of JOB_STATES (a string: a later service may add states). */
  state: JobState | (string & {});
  /** When the job is due: its next attempt while scheduled or retryable. */
  run_at: string;
  /** The attempts made so far (while running: the one in progress). */
  attempt: number;
  max_attempts: number;
  attempts?: JobAttempt[];
}

/** GET /v1/errors/{error_id}. */
export interface ErrorRecord extends RecordSummary {
  report: Report | null;
  feedback: Feedback | null;
  occurrences?: Occurrence[];
  occurrences_next_cursor?: string;
  jobs?: Job[];
  more_jobs?: boolean;
}

/** A page of GET /v1/errors/{error_id}/occurrences. */
export interface OccurrencePage {
  occurrences: Occurrence[];
  next_cursor?: string;
}

/** An agent of the registry (GET /v1/agents). */
export interface AgentInfo {
  id: string;
  kind: string;
  description: string;
  capabilities: string[];
  executor: string;
  maxSessions: number;
  model?: string;
  members?: string[];
}
