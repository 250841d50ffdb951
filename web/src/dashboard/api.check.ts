// A type test of the generated API types (@triage/client/api, the client's
// api.gen.ts), type-checked with
// the rest of the sources (npm run typecheck; go test ./web): a client
// posts a report with a context and reads a failed run's fault code. It is
// not part of the dashboard's build. Were a free-form object typed
// Record<string, never> (a bare "type": "object"), the context would not
// compile; the @ts-expect-error lines prove the types refuse what the API
// does.

import type { components, paths } from '@triage/client/api';

type ReportBody = paths['/v1/errors']['post']['requestBody']['content']['application/json'];
type Created = paths['/v1/errors']['post']['responses'][201]['content']['application/json'];
type RunRecord = paths['/v1/runs/{run_id}']['get']['responses'][200]['content']['application/json'];
type Code = components['schemas']['Code'];

/** Posts a report, then reads how run runId ended: its fault's code, if it failed. */
export async function reportThenReadRun(base: string, key: string, runId: string): Promise<Code | undefined> {
  const report: ReportBody = {
    agent_id: 'sql_agent',
    timestamp: new Date().toISOString(),
    status: 'error',
    data: {
      message: 'query timed out after 30s',
      query_id: 'q_456',
      error_code: 'DB_TIMEOUT',
      context: { metric: 'sales', row_count: 48_000_000, filters: { region: 'EU' } },
      fault: { code: 'TIMEOUT', retry_after: 1.5 },
    },
  };
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const posted = await fetch(`${base}/v1/errors`, { method: 'POST', headers, body: JSON.stringify(report) });
  const feedback = (await posted.json()) as Created;
  const next: 'resume' | 'await_user' | 'escalate' = feedback.next_action;
  const retryable: boolean = feedback.fault.retryable;
  const resumeFrom: unknown = feedback.context?.['filters'];
  void [next, retryable, resumeFrom];

  const got = await fetch(`${base}/v1/runs/${encodeURIComponent(runId)}`, { headers });
  const run = (await got.json()) as RunRecord;
  const outcome: 'running' | 'finished' | 'failed' | 'disconnected' | 'shutdown' = run.outcome;
  void outcome;
  return run.fault?.code;
}

// @ts-expect-error: a report's status is "error"
export const notAReport: ReportBody['status'] = 'ok';
// @ts-expect-error: a code is one of the code table's
export const notACode: Code = 'NOT_A_CODE';
// @ts-expect-error: a report needs its data's message and query_id
export const noData: ReportBody = { agent_id: 'a', timestamp: '2025-08-08T12:00:00Z', status: 'error', data: {} };
