// The API key. A service started with API keys answers 401 (no key) or
// 403 (a wrong one) to every /v1 request without a valid key; the page
// then asks for one (KeyDialog), and sends it in the X-API-Key header. The
// key is kept in sessionStorage only: it lasts as long as the tab, and no
// other tab, no later visit and no cookie sees it.

import { createContext, useCallback, useContext, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode, type RefObject } from 'react';

import type { AGUIErrorData } from '@triage/kit';

/** The sessionStorage item that holds the key. */
export const KEY_ITEM = 'triage.apiKey';

function loadKey(): string | null {
  try {
    return window.sessionStorage.getItem(KEY_ITEM);
  } catch {
    return null; // storage disabled: the key lasts as long as the page
  }
}

function storeKey(key: string | null) {
  try {
    if (key === null) window.sessionStorage.removeItem(KEY_ITEM);
    else window.sessionStorage.setItem(KEY_ITEM, key);
  } catch {
    // storage disabled
  }
}

export interface Auth {
  /** The key to send; null for none. */
  key: string | null;
  /** Counts the keys given (the same one again too): requests made with an older one should be made again. */
  version: number;
  /** The refusal (401 or 403) the page is asking a key for; null when it is not asking. */
  refused: AGUIErrorData | null;
  /** Takes a key: stores it and stops asking. Requests made with the old key should be made again. */
  setKey: (key: string) => void;
  /** Asks for a key, saying why: a 401 or 403 problem. */
  refuse: (problem: AGUIErrorData) => void;
  /** Forgets the key. */
  forget: () => void;
  /** Whether the key dialog is shown: the page was refused, and the user has not dismissed the dialog (Escape). */
  asking: boolean;
  /** Shows the key dialog again (while refused) or dismisses it. */
  setAsking: (asking: boolean) => void;
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [key, setKeyState] = useState<string | null>(loadKey);
  const [version, setVersion] = useState(0);
  const [refused, setRefused] = useState<AGUIErrorData | null>(null);
  const [dismissed, setDismissed] = useState(false);
  const setKey = useCallback((k: string) => {
    storeKey(k);
    setKeyState(k);
    setVersion((v) => v + 1);
    setRefused(null);
    setDismissed(false);
  }, []);
  // A refusal while the dialog is dismissed (the live stream's next
  // attempt) leaves it dismissed: only a new key, or the user, asks again.
  const refuse = useCallback((p: AGUIErrorData) => setRefused(p), []);
  const setAsking = useCallback((asking: boolean) => setDismissed(!asking), []);
  const asking = refused !== null && !dismissed;
  const forget = useCallback(() => {
    storeKey(null);
    setKeyState(null);
    setVersion((v) => v + 1);
    setDismissed(false);
  }, []);
  const auth = useMemo(
    () => ({ key, version, refused, setKey, refuse, forget, asking, setAsking }),
    [key, version, refused, setKey, refuse, forget, asking, setAsking],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** The controls Tab stops at in the key dialog. */
const TABBABLE = 'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

/**
 * Asks for an API key while the service refuses the page's requests: the
 * refusal's own message (the 401's "An API key is required…", the 403's
 * "The API key is not valid.") and a field for the key.
 *
 * A native modal <dialog> (showModal): the page behind it is inert, so
 * neither Tab nor a screen reader's virtual cursor reaches it; Tab from
 * its last control goes to its first, Shift+Tab from its first to its
 * last. It is labelled by its heading and described by the refusal.
 * Escape dismisses it (the header's "Enter API key" shows it again); on
 * closing, the focus returns to where it was when the dialog opened, or
 * to fallback (the page) when that is gone or was nothing.
 */
export function KeyDialog({ fallback }: { fallback?: RefObject<HTMLElement | null> } = {}) {
  const auth = useAuth();
  const [value, setValue] = useState('');
  const ref = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<Element | null>(null);
  const open = auth.asking;
  const refused = auth.refused;
  // In the commit that renders its content, not a frame later.
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      returnTo.current = document.activeElement;
      // Its focusing steps focus its first control, the key's field.
      d.showModal();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);
  const { setAsking } = auth;
  // Escape: the dialog closes itself, and stays closed.
  const onCancel = useCallback(() => setAsking(false), [setAsking]);
  const onClose = useCallback(() => {
    // Closed by Escape, or by the effect above (a key was given).
    const back = returnTo.current;
    returnTo.current = null;
    if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus();
    else fallback?.current?.focus();
  }, [fallback]);
  const wrong = refused?.httpStatus === 403;
  // Chromium's modal dialog lets Tab leave the last control for the
  // browser's own toolbar; the dialog's controls go round instead.
  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== 'Tab') return;
    const controls = [...e.currentTarget.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => el.checkVisibility?.() ?? true);
    const first = controls[0];
    const last = controls.at(-1);
    if (!first || !last) return;
    const at = document.activeElement;
    if (e.shiftKey ? at === first || !e.currentTarget.contains(at) : at === last) {
      e.preventDefault();
      (e.shiftKey ? last : first).focus();
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const k = value.trim();
    if (k) {
      auth.setKey(k);
      setValue('');
    }
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="key-title" aria-describedby="key-problem" onCancel={onCancel} onClose={onClose} onKeyDown={onKeyDown}>
      {refused && (
        <form onSubmit={submit}>
          <h2 id="key-title">{wrong ? 'The API key was refused' : 'This service needs an API key'}</h2>
          <p id="key-problem" className={wrong ? 'problem' : undefined} role="alert" data-code={refused.code}>
            {refused.message}
          </p>
          <label>
            API key
            <input
              type="password"
              name="api-key"
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
          </label>
          <p className="hint">Kept in this tab only (sessionStorage), and sent in the X-API-Key header.</p>
          <button type="submit" disabled={value.trim() === ''}>
            Use this key
          </button>
        </form>
      )}
    </dialog>
  );
}
