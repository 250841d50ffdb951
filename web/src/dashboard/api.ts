// Requests to the service's API, with the API key when there is one. A
// response that is not ok is read with the kit's readProblem (the service
// answers every failure with problem+json) and thrown as an ApiError.

import { readProblem, type AGUIErrorData } from '@triage/kit';

/** A request the service refused: its status and its problem, as the kit reads it. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: AGUIErrorData;

  constructor(status: number, problem: AGUIErrorData) {
    super(problem.message);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }
}

/**
 * Reports whether the service refused the request's credentials: 401 (no
 * API key; TENANT_REQUIRED) or 403 (a key it does not know;
 * TENANT_UNAUTHORIZED). The page then asks for a key.
 */
export function isAuthError(e: unknown): e is ApiError {
  return e instanceof ApiError && (e.status === 401 || e.status === 403);
}

/** The headers that carry key; none when there is no key. */
export function authHeaders(key: string | null): Record<string, string> {
  return key ? { 'X-API-Key': key } : {};
}

/** GETs path (a path of the API, with its query) and returns its JSON. */
export async function getJSON<T>(path: string, key: string | null, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = { headers: { Accept: 'application/json', ...authHeaders(key) }, cache: 'no-store' };
  if (signal) init.signal = signal;
  const res = await fetch(path, init);
  if (!res.ok) throw new ApiError(res.status, await readProblem(res));
  return (await res.json()) as T;
}

/** Reports whether e is the rejection of an aborted request. */
export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}
