import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { Sparkline, sparkPaths } from './Sparkline';

describe('sparkline', () => {
  it('draws counts from left to right, scaled to the peak', () => {
    // 96 × 24: the peak one pixel under the top, zero one pixel over the bottom.
    expect(sparkPaths([0, 4, 2]).line).toBe('M0,23L48,1L96,12');
    expect(sparkPaths([0, 4, 2]).area).toBe('M0,23L48,1L96,12L96,24L0,24Z');
    // All zero: a flat line at the bottom, not a division by zero.
    expect(sparkPaths([0, 0]).line).toBe('M0,23L96,23');
    // One bucket: a flat line across.
    expect(sparkPaths([5]).line).toBe('M0,1L96,1');
    expect(sparkPaths([])).toEqual({ line: '', area: '' });
  });

  it('says its sum and peak in words', () => {
    render(<Sparkline counts={[0, 3, 1]} range="the last 24 hours" per="hour" />);
    const img = screen.getByRole('img', { name: '4 in the last 24 hours, at most 3 in an hour' });
    expect(img.getAttribute('data-total')).toBe('4');
    render(<Sparkline counts={[0, 0]} range="the last 30 days" per="day" />);
    expect(screen.getByRole('img', { name: '0 in the last 30 days' })).toBeTruthy();
  });

  it('shows nothing while its counts are read', () => {
    const { container } = render(<Sparkline counts={undefined} range="the last 24 hours" per="hour" />);
    expect(container.querySelector('svg')).toBeNull();
    expect(screen.queryByRole('img')).toBeNull();
  });
});
