// useJSON: a GET of the API as React state, made again when the path or
// the API key changes, or on reload(). A refusal of the key (401, 403)
// makes the page ask for one; once given, the request is made again.

import { useCallback, useEffect, useState } from 'react';

import { ApiError, getJSON, isAbort, isAuthError } from './api';
import { useAuth } from './auth';

export interface JSONState<T> {
  data: T | undefined;
  /** The last request's failure; null when it succeeded. */
  error: ApiError | Error | null;
  /** Whether a request is in flight (the data, if any, is the previous one's). */
  loading: boolean;
  /** Makes the request again, keeping the data shown until it answers. */
  reload: () => void;
}

export function useJSON<T>(path: string | null): JSONState<T> {
  const { key, version, refuse } = useAuth();
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  // A new path starts without the old path's data.
  const [shownPath, setShownPath] = useState(path);
  if (shownPath !== path) {
    setShownPath(path);
    setData(undefined);
    setError(null);
  }

  useEffect(() => {
    if (path === null) return;
    const ctl = new AbortController();
    setLoading(true);
    getJSON<T>(path, key, ctl.signal).then(
      (d) => {
        setData(d);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (isAbort(e)) return;
        if (isAuthError(e)) refuse(e.problem);
        setError(e instanceof Error ? e : new Error(String(e)));
        setLoading(false);
      },
    );
    return () => ctl.abort();
  }, [path, key, version, refuse, generation]);

  return { data, error, loading, reload };
}
