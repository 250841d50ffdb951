// A filter's choice of one value or any (the lists' filters: ListFilters.tsx,
// Runs.tsx, Sessions.tsx): a labelled <select> whose first option, "", is
// "any …", applied when chosen.

import { SINCE_PRESETS } from './route';

export function Choice({
  label,
  name,
  value,
  any,
  options,
  onChange,
}: {
  label: string;
  /** The select's name: the filter's. */
  name: string;
  value: string;
  /** The option of no filter ("any outcome"). */
  any: string;
  /** The values, each with its label. */
  options: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{any}</option>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The options of a list of values, each its own label. */
export function named(values: readonly string[]): [string, string][] {
  return values.map((v) => [v, v]);
}

/** The since filter's options: SINCE_PRESETS. */
export const SINCE_OPTIONS: [string, string][] = Object.entries(SINCE_PRESETS).map(([k, p]) => [k, p.label]);
