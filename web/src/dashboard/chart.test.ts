import { describe, expect, it } from 'vitest';

import { describeSeries, percent } from './chart';

describe('the charts in words', () => {
  it('writes rates', () => {
    expect(percent(0)).toBe('0 %');
    expect(percent(0.004)).toBe('0.4 %');
    expect(percent(0.5)).toBe('50 %');
    expect(percent(1)).toBe('100 %');
    expect(percent(Number.NaN)).toBe('—');
  });

  it('says a series: its total, its peak and when', () => {
    expect(describeSeries([0, 0], 'hour', '2025-08-08T10:00:00Z')).toBe('No occurrences in 2 hours');
    const s = describeSeries([1, 5, 2], 'hour', '2025-08-08T10:00:00Z');
    expect(s).toMatch(/^8 occurrences in 3 hours; at most 5 in one hour, from /);
    expect(describeSeries([3], 'day', 'x', 'failures')).toBe('3 failures in 1 day; at most 3 in one day');
    expect(describeSeries([0, 1], 'day', 'x')).toBe('1 occurrence in 2 days; at most 1 in one day');
  });
});
