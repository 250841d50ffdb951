// What every page of the dashboard shares for people who navigate by
// keyboard or screen reader: the tab's title says the page, and moving to
// another page moves the focus to its heading.
//
//	usePageTitle('Errors')   // the tab reads "Errors — Triage"
//
// The shell (App.tsx) calls usePageFocus with the route; a page calls
// usePageTitle with its name (or its record's title once loaded) and
// renders one <h1>. The focus goes to that h1 (made focusable with
// tabindex="-1" when it is not), also when it appears only after the page
// has loaded.
//
// A table or block wider than a narrow window scrolls in its own box
// (ScrollBox, useScrollFocus), never the page; a box that scrolls can be
// reached with Tab, so that a keyboard can scroll it too.

import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

/** What follows a page's title in the tab's. */
export const SITE = 'Triage';

/** The tab's title for a page's: "Errors — Triage"; the site's alone for none. */
export function pageTitle(title: string | undefined | null): string {
  const t = title?.trim();
  return t ? `${t} — ${SITE}` : SITE;
}

/**
 * Sets the tab's title to the page's ("{title} — Triage") while the
 * calling component is shown, and as title changes (a record's, once
 * loaded). Call it once per page, in the page's component.
 */
export function usePageTitle(title: string | undefined | null): void {
  useEffect(() => {
    document.title = pageTitle(title);
  }, [title]);
}

/** How long the focus waits for a page's h1 to appear, in ms. */
const HEADING_WAIT = 5000;

/**
 * Moves the focus to the h1 inside root whenever key changes (not on the
 * first load: the browser starts at the top of the document, as it
 * should). key names the page shown, not its query: a filter or a cursor
 * that changes the URL but not the page keeps the focus where it is. When
 * the h1 is not there yet (a page that renders its heading once loaded), it
 * is focused when it appears, unless the user has moved the focus
 * meanwhile.
 */
export function usePageFocus(key: string, root: { current: HTMLElement | null }): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const el = root.current;
    if (!el) return;
    // The focus when the page changed: what the user clicked, or <body>
    // once that was removed with the old page.
    const before = document.activeElement;
    // A page still loading its code (chunk.tsx) has a placeholder h1
    // (data-pending): it takes the focus, which goes on to the page's own
    // h1 when that replaces it.
    const pending = (e: Element | null) => e instanceof HTMLElement && e.dataset.pending !== undefined;
    const focus = (): boolean => {
      const h1 = el.querySelector('h1');
      if (!h1) return false;
      const now = document.activeElement;
      const moved = now !== before && now !== document.body && now !== null && !pending(now);
      if (!moved) {
        if (!h1.hasAttribute('tabindex')) h1.setAttribute('tabindex', '-1');
        h1.focus();
      }
      return !pending(h1);
    };
    if (focus()) return;
    const observer = new MutationObserver(() => {
      if (focus()) stop();
    });
    const timer = setTimeout(() => stop(), HEADING_WAIT);
    const stop = () => {
      observer.disconnect();
      clearTimeout(timer);
    };
    observer.observe(el, { childList: true, subtree: true });
    return stop;
  }, [key, root]);
}

/** The key of a route for usePageFocus: its page, and its record's id if any. */
export function pageKey(route: { page: string; id?: string }): string {
  return route.id === undefined ? route.page : `${route.page}/${route.id}`;
}

/**
 * Makes the element of the returned ref reachable by Tab (tabindex="0"),
 * as a region named label, while its content is wider or taller than it
 * (it scrolls): a keyboard can then scroll it with the arrow keys. The
 * attributes go again when it no longer scrolls, so that a box that fits
 * is no stop for Tab.
 */
export function useScrollFocus<T extends HTMLElement>(label: string): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const update = () => {
      const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
      if (scrolls) {
        el.setAttribute('tabindex', '0');
        el.setAttribute('role', 'region');
        el.setAttribute('aria-label', label);
      } else {
        el.removeAttribute('tabindex');
        el.removeAttribute('role');
        el.removeAttribute('aria-label');
      }
    };
    const observer = new ResizeObserver(update);
    observer.observe(el);
    for (const child of el.children) observer.observe(child);
    update();
    return () => observer.disconnect();
  }, [label]);
  return ref;
}

/** A box that a wide table scrolls in sideways, not the page; label names it while it scrolls. */
export function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  const ref = useScrollFocus<HTMLDivElement>(label);
  return (
    <div ref={ref} className="scroll-x">
      {children}
    </div>
  );
}
