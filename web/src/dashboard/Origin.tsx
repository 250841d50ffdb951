// Where a record's occurrence came from (ErrorPage.tsx): the AG-UI run
// that produced it, linked to its page; the session, linked to the MCP
// session's page when the service recorded it, else to the errors list
// filtered by it; the trace id.

import { Fact } from './Fact';
import { NO_FILTERS, errorsHash, sessionHash } from './route';
import { originOf, runHash, type Origin } from './record';
import type { MCPSession } from './types';
import { useJSON } from './useJSON';

// ---- where it came from

/** The run (a link to its page) or MCP session, and the trace, that produced the latest occurrence. */
export function OriginView({ origin }: { origin: Origin }) {
  if (!origin.runId && !origin.sessionId && !origin.traceId) return null;
  return (
    <section aria-labelledby="origin-title">
      <h2 id="origin-title">Where it came from</h2>
      <dl className="facts">
        {origin.runId && (
          <Fact name="AG-UI run">
            <a href={runHash(origin.runId)} className="cut" title={origin.runId} data-testid="run-link">
              {origin.runId}
            </a>
          </Fact>
        )}
        {origin.sessionId && <SessionFact origin={origin} sessionId={origin.sessionId} />}
        {origin.traceId && (
          <Fact name="Trace ID">
            <code className="cut" title={origin.traceId} data-testid="trace-id">
              {origin.traceId}
            </code>
          </Fact>
        )}
      </dl>
    </section>
  );
}

/**
 * The session that produced it: linked to the session's page when it is an
 * MCP session the service recorded (GET /v1/sessions/{session_id} has it),
 * else (a framework adapter's session, or one expired) to the errors list
 * filtered by it.
 */
function SessionFact({ origin, sessionId }: { origin: Origin; sessionId: string }) {
  const recorded = useJSON<MCPSession>(origin.door === 'mcp' ? `/v1/sessions/${encodeURIComponent(sessionId)}` : null);
  const mcp = recorded.data !== undefined;
  return (
    <Fact name={origin.door === 'mcp' ? 'MCP session' : 'Session'}>
      <a
        href={mcp ? sessionHash(sessionId) : errorsHash({ ...NO_FILTERS, session_id: sessionId })}
        className="cut"
        title={mcp ? `MCP session ${sessionId}` : `The errors of session ${sessionId}`}
        data-testid="session-link"
        data-session-kind={mcp ? 'mcp' : 'errors'}
      >
        {sessionId}
      </a>
      {origin.tool && <span className="muted"> (tool {origin.tool})</span>}
    </Fact>
  );
}

/** The links of one occurrence, in a line: run, session, trace. */
export function OriginLine({ report }: { report: unknown }) {
  const o = originOf(report);
  if (!o.runId && !o.sessionId && !o.traceId) return null;
  return (
    <div className="small origin-line">
      {o.runId && (
        <a href={runHash(o.runId)} className="cut" title={`Run ${o.runId}`}>
          run {o.runId}
        </a>
      )}
      {o.sessionId && (
        <span className="cut" title={`MCP session ${o.sessionId}`}>
          {' '}
          session {o.sessionId}
        </span>
      )}
      {o.traceId && (
        <span className="cut" title={`Trace ${o.traceId}`}>
          {' '}
          trace <code>{o.traceId}</code>
        </span>
      )}
    </div>
  );
}

