// The form that changes records' status and assignee: one for the record
// page (PATCH /v1/errors/{error_id}) and the errors page's bulk changes
// (POST /v1/errors/changes), with the same actions (change.ts): resolve
// now, in a release or in the next; ignore for good, for a time, or until
// it occurs N more times (within a window); unresolve; assign. A refused
// change is shown as its problem: the message and the members at fault.

import { cloneElement, useId, useState, type FormEvent, type ReactElement } from 'react';

import { ApiError } from './api';
import { IGNORE_FOR, STATUS_ACTIONS, WINDOWS, type StatusForm } from './change';
import { Failure } from './format';

export function ChangeForm({
  initial,
  label,
  busy,
  disabled = false,
  error,
  submitLabel = 'Apply',
  onSubmit,
}: {
  /** The form's first values. */
  initial: StatusForm;
  /** The form's accessible name: "Change the status". */
  label: string;
  /** A change is under way: Apply waits. */
  busy: boolean;
  /** Nothing to change (no record selected): Apply is disabled. */
  disabled?: boolean;
  /** The last change's failure, shown under the form. */
  error: Error | null;
  /** The submit button's text. */
  submitLabel?: string;
  onSubmit: (f: StatusForm) => void;
}) {
  const [form, setForm] = useState<StatusForm>(initial);
  const set = <K extends keyof StatusForm>(k: K, v: StatusForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(form);
  };
  return (
    <>
      <form className="status-form" onSubmit={submit} aria-label={label}>
        <Field label="Action">
          <select value={form.action} onChange={(e) => set('action', e.target.value as StatusForm['action'])}>
            {STATUS_ACTIONS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </Field>
        {form.action === 'resolve_in_release' && (
          <Field label="Release">
            <input value={form.release} onChange={(e) => set('release', e.target.value)} required />
          </Field>
        )}
        {form.action === 'ignore_for' && (
          <Field label="For">
            <select value={form.seconds} onChange={(e) => set('seconds', Number(e.target.value))}>
              {IGNORE_FOR.map((o) => (
                <option key={o.seconds} value={o.seconds}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
        )}
        {form.action === 'ignore_until_count' && (
          <>
            <Field label="More occurrences">
              <input type="number" min={1} value={form.count} onChange={(e) => set('count', Number(e.target.value))} required />
            </Field>
            <Field label="Within">
              <select value={form.windowSeconds} onChange={(e) => set('windowSeconds', Number(e.target.value))}>
                {WINDOWS.map((o) => (
                  <option key={o.seconds} value={o.seconds}>
                    {o.label}
                  </option>
                ))}
              </select>
            </Field>
          </>
        )}
        {form.action === 'assign' && (
          <Field label="Assignee (empty: no one)">
            <input value={form.assignee} maxLength={200} autoComplete="off" onChange={(e) => set('assignee', e.target.value)} />
          </Field>
        )}
        <Field label="Note (optional)" className="note">
          <input value={form.note} onChange={(e) => set('note', e.target.value)} />
        </Field>
        <button type="submit" className="primary" disabled={busy || disabled}>
          {submitLabel}
        </button>
      </form>
      {error && <ChangeFailure error={error} />}
    </>
  );
}

/** A labelled control of the form: the label names it alone (not its value). */
function Field({ label, className, children }: { label: string; className?: string; children: ReactElement<{ id?: string }> }) {
  const id = useId();
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id })}
    </div>
  );
}

/** A refused change: the problem's message and the members at fault. */
function ChangeFailure({ error }: { error: Error }) {
  if (!(error instanceof ApiError)) return <Failure error={error} />;
  const fields = error.problem.fieldErrors;
  return (
    <div className="problem" role="alert" data-code={error.problem.code}>
      {error.problem.message} <span className="muted">({error.problem.code}, HTTP {error.status})</span>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code> {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
