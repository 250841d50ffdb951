// The change a status form asks of records: its actions, what it holds,
// and the body of the change (PATCH /v1/errors/{error_id}, or the bulk
// POST /v1/errors/changes, which take the same Change). The record page's
// status form and the errors page's bulk form are one component
// (ChangeForm.tsx) on this.

import type { components } from '@triage/client/api';

/** A change asked of a record. */
type Change = components['schemas']['Change'];

/** The actions of the status form. */
export type StatusAction =
  | 'resolve'
  | 'resolve_in_release'
  | 'resolve_next_release'
  | 'ignore'
  | 'ignore_for'
  | 'ignore_until_count'
  | 'unresolve'
  | 'assign';

export const STATUS_ACTIONS: { value: StatusAction; label: string }[] = [
  { value: 'resolve', label: 'Resolve' },
  { value: 'resolve_in_release', label: 'Resolve in release…' },
  { value: 'resolve_next_release', label: 'Resolve in the next release' },
  { value: 'ignore', label: 'Ignore forever' },
  { value: 'ignore_for', label: 'Ignore for a time…' },
  { value: 'ignore_until_count', label: 'Ignore until it occurs N more times…' },
  { value: 'unresolve', label: 'Unresolve' },
  { value: 'assign', label: 'Assign…' },
];

/** What the status form holds. */
export interface StatusForm {
  action: StatusAction;
  release: string;
  /** For ignore_for: seconds. */
  seconds: number;
  /** For ignore_until_count. */
  count: number;
  /** For ignore_until_count: a window in seconds, 0 for none. */
  windowSeconds: number;
  assignee: string;
  note: string;
}

/** The body of the PATCH a form asks for. */
export function changeOf(f: StatusForm): Change {
  const c: Change = {};
  switch (f.action) {
    case 'resolve':
      c.status = 'resolved';
      break;
    case 'resolve_in_release':
      c.status = 'resolved';
      c.resolution = { in_release: f.release.trim() };
      break;
    case 'resolve_next_release':
      c.status = 'resolved';
      c.resolution = { in_next_release: true };
      break;
    case 'ignore':
      c.status = 'ignored';
      break;
    case 'ignore_for':
      c.status = 'ignored';
      c.ignore = { seconds: f.seconds };
      break;
    case 'ignore_until_count':
      c.status = 'ignored';
      c.ignore = f.windowSeconds > 0 ? { count: f.count, window_seconds: f.windowSeconds } : { count: f.count };
      break;
    case 'unresolve':
      c.status = 'unresolved';
      break;
    case 'assign':
      c.assignee = f.assignee.trim();
      break;
  }
  if (f.note.trim() !== '') c.note = f.note.trim();
  return c;
}

/** The durations of "Ignore for a time…". */
export const IGNORE_FOR: { seconds: number; label: string }[] = [
  { seconds: 3600, label: '1 hour' },
  { seconds: 6 * 3600, label: '6 hours' },
  { seconds: 24 * 3600, label: '24 hours' },
  { seconds: 7 * 24 * 3600, label: '7 days' },
  { seconds: 30 * 24 * 3600, label: '30 days' },
];

/** The windows of "Ignore until it occurs N more times…". */
export const WINDOWS: { seconds: number; label: string }[] = [
  { seconds: 0, label: 'any time' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 24 * 3600, label: '24 hours' },
  { seconds: 7 * 24 * 3600, label: '7 days' },
];

/**
 * What a bulk change did, in a sentence for the page's live region:
 * "Resolved 2 errors.", "Ignored 3 errors for 1 hour; 1 already was
 * ignored." (changed of the of selected: a record already as asked is not
 * counted).
 */
export function bulkSaid(f: StatusForm, changed: number, of: number): string {
  const errors = `${changed} ${changed === 1 ? 'error' : 'errors'}`;
  const left = of - changed;
  const already = (was: string) => (left > 0 ? `; ${left} already ${left === 1 ? 'was' : 'were'} ${was}` : '');
  const label = (list: { seconds: number; label: string }[], s: number) => list.find((o) => o.seconds === s)?.label ?? `${s} seconds`;
  switch (f.action) {
    case 'resolve':
      return `Resolved ${errors}${already('resolved')}.`;
    case 'resolve_in_release':
      return `Resolved ${errors} in ${f.release.trim()}${already('resolved so')}.`;
    case 'resolve_next_release':
      return `Resolved ${errors} in the next release${already('resolved so')}.`;
    case 'ignore':
      return `Ignored ${errors}${already('ignored')}.`;
    case 'ignore_for':
      return `Ignored ${errors} for ${label(IGNORE_FOR, f.seconds)}${already('ignored so')}.`;
    case 'ignore_until_count':
      return `Ignored ${errors} until ${f.count} more${f.windowSeconds > 0 ? ` within ${label(WINDOWS, f.windowSeconds)}` : ''}${already('ignored so')}.`;
    case 'unresolve':
      return `Unresolved ${errors}${already('unresolved')}.`;
    case 'assign': {
      const who = f.assignee.trim();
      return who ? `Assigned ${errors} to ${who}${already('assigned to them')}.` : `Unassigned ${errors}${already('unassigned')}.`;
    }
  }
}
