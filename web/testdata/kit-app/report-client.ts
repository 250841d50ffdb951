// What src/report.ts is in the app the test type-checks, builds and opens:
// each failed run reported to the service with @triage/client, from the
// browser (the page's origin, where /v1 is the service).
import { TriageClient } from '@triage/client';

const triage = new TriageClient({ baseUrl: window.location.origin });

/** Reports a failed run to Triage; resolves to its record's id. */
export async function reportFailure(message: string, code: string): Promise<string | undefined> {
  const feedback = await triage.report({ agent_id: 'kit-app', data: { query_id: 'chat', message, error_code: code } });
  return feedback.error_id;
}
