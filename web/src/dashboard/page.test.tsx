import { act, render, screen } from '@testing-library/react';
import { useRef, useState } from 'react';
import { describe, expect, it } from 'vitest';

import { pageKey, pageTitle, usePageFocus, usePageTitle } from './page';

function Titled({ title }: { title: string | undefined }) {
  usePageTitle(title);
  return null;
}

/** A shell with two pages; the second renders its h1 only once "loaded". */
function Shell() {
  const [page, setPage] = useState<'a' | 'b'>('a');
  const [loaded, setLoaded] = useState(false);
  const main = useRef<HTMLElement>(null);
  usePageFocus(page, main);
  return (
    <>
      <button onClick={() => setPage('b')}>to b</button>
      <button onClick={() => setLoaded(true)}>load</button>
      <main ref={main}>{page === 'a' ? <h1>Page A</h1> : loaded ? <h1>Page B</h1> : <p>Loading…</p>}</main>
    </>
  );
}

describe('the page', () => {
  it('says its title in the tab’s', () => {
    expect(pageTitle('Errors')).toBe('Errors — Triage');
    expect(pageTitle('  ')).toBe('Triage');
    expect(pageTitle(undefined)).toBe('Triage');
    const { rerender } = render(<Titled title="err_1" />);
    expect(document.title).toBe('err_1 — Triage');
    rerender(<Titled title="DB_TIMEOUT: Query timed out" />);
    expect(document.title).toBe('DB_TIMEOUT: Query timed out — Triage');
  });

  it('is keyed by its page and record, not its query', () => {
    expect(pageKey({ page: 'errors' })).toBe('errors');
    expect(pageKey({ page: 'error', id: 'err_1' })).toBe('error/err_1');
  });

  it('moves the focus to the new page’s h1, once it appears, but not on the first load', async () => {
    render(<Shell />);
    expect(document.activeElement).toBe(document.body);
    const to = screen.getByRole('button', { name: 'to b' });
    to.focus();
    act(() => to.click());
    // Not there yet: the focus stays until it is.
    expect(document.activeElement).toBe(to);
    // The user moves the focus (to "load") before the page has loaded: it
    // is left there.
    const load = screen.getByRole('button', { name: 'load' });
    load.focus();
    await act(async () => load.click());
    await new Promise((r) => setTimeout(r, 0)); // the MutationObserver's callback
    screen.getByRole('heading', { name: 'Page B' });
    expect(document.activeElement).toBe(load);
  });

  it('focuses an h1 that appears later when the focus has not moved', async () => {
    render(<Shell />);
    const to = screen.getByRole('button', { name: 'to b' });
    to.focus();
    act(() => to.click());
    const load = screen.getByRole('button', { name: 'load' });
    // Loaded without the focus moving (load.click() does not focus it).
    await act(async () => load.click());
    await new Promise((r) => setTimeout(r, 0)); // the MutationObserver's callback
    const h1 = screen.getByRole('heading', { name: 'Page B' });
    expect(document.activeElement).toBe(h1);
    expect(h1.getAttribute('tabindex')).toBe('-1');
  });
});
