// The API key. A service started with API keys answers 401 (no key) or
// 403 (a wrong one) to every /v1 request without a valid key; the page
// then asks for one (KeyDialog), and sends it in the X-API-Key header. The
// key is kept in sessionStorage only: it lasts as long as the tab, and no
// other tab, no later visit and no cookie sees it.

import { createContext, useCallback, useContext, useMemo, useState, type FormEvent, type ReactNode } from 'react';

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
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [key, setKeyState] = useState<string | null>(loadKey);
  const [version, setVersion] = useState(0);
  const [refused, setRefused] = useState<AGUIErrorData | null>(null);
  const setKey = useCallback((k: string) => {
    storeKey(k);
    setKeyState(k);
    setVersion((v) => v + 1);
    setRefused(null);
  }, []);
  const refuse = useCallback((p: AGUIErrorData) => setRefused(p), []);
  const forget = useCallback(() => {
    storeKey(null);
    setKeyState(null);
    setVersion((v) => v + 1);
  }, []);
  const auth = useMemo(
    () => ({ key, version, refused, setKey, refuse, forget }),
    [key, version, refused, setKey, refuse, forget],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/**
 * Asks for an API key while the service refuses the page's requests: the
 * refusal's own message (the 401's "An API key is required…", the 403's
 * "The API key is not valid.") and a field for the key.
 */
export function KeyDialog() {
  const auth = useAuth();
  const [value, setValue] = useState('');
  if (!auth.refused) return null;
  const wrong = auth.refused.httpStatus === 403;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const k = value.trim();
    if (k) {
      auth.setKey(k);
      setValue('');
    }
  };
  return (
    <div className="backdrop">
      <form className="dialog" role="dialog" aria-modal="true" aria-labelledby="key-title" onSubmit={submit}>
        <h2 id="key-title">{wrong ? 'The API key was refused' : 'This service needs an API key'}</h2>
        <p className={wrong ? 'problem' : undefined} role="alert" data-code={auth.refused.code}>
          {auth.refused.message}
        </p>
        <label>
          API key
          <input
            type="password"
            name="api-key"
            autoComplete="off"
            autoFocus
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        </label>
        <p className="hint">Kept in this tab only (sessionStorage), and sent in the X-API-Key header.</p>
        <button type="submit" disabled={value.trim() === ''}>
          Use this key
        </button>
      </form>
    </div>
  );
}
