// The bulk changes of the errors page: one change (resolve, ignore,
// assign) of the records selected, in one POST /v1/errors/changes.

import { ApiError, authHeaders } from './api';
import { readProblem } from '@triage/kit';
import type { components } from '@triage/client/api';

/** A change, as PATCH /v1/errors/{error_id} and the bulk change take it. */
export type Change = components['schemas']['Change'];

/**
 * Applies change to the records ids (at most MaxBulkIDs, 10,000) and
 * returns how many it changed (those already as asked are not counted).
 * A refusal is an ApiError with the service's problem.
 */
export async function changeErrors(ids: readonly string[], change: Change, key: string | null): Promise<number> {
  const res = await fetch('/v1/errors/changes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...authHeaders(key) },
    body: JSON.stringify({ change, filter: { error_ids: ids } }),
    cache: 'no-store',
  });
  if (!res.ok) throw new ApiError(res.status, await readProblem(res));
  const body = (await res.json()) as components['schemas']['RecordsChanged'];
  return body.changed;
}
