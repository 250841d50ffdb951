import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { AuthProvider, KEY_ITEM, KeyDialog, useAuth } from './auth';
import { useJSON } from './useJSON';

const GOOD = 'key-good-0123456789';

/** The service with one API key: 401 without a key, 403 with another. */
function service() {
  const keys: (string | null)[] = [];
  const fetch = vi.fn(async (_path: string, init: RequestInit) => {
    const key = new Headers(init.headers).get('X-API-Key');
    keys.push(key);
    const refuse = (status: number, code: string, detail: string) =>
      new Response(JSON.stringify({ type: '/errors/x', title: code, status, detail, code }), {
        status,
        headers: { 'Content-Type': 'application/problem+json' },
      });
    if (key === null) {
      return refuse(401, 'TENANT_REQUIRED', 'An API key is required: send it in the X-API-Key header, or in the Authorization header with the scheme Bearer.');
    }
    if (key !== GOOD) return refuse(403, 'TENANT_UNAUTHORIZED', 'The API key is not valid.');
    return new Response(JSON.stringify({ agents: [{ id: 'echo' }] }), { headers: { 'Content-Type': 'application/json' } });
  });
  return { fetch, keys };
}

function Agents() {
  const { data, error } = useJSON<{ agents: { id: string }[] }>('/v1/agents');
  if (data) return <p>agents: {data.agents.map((a) => a.id).join(',')}</p>;
  if (error) return <p>failed: {error.message}</p>;
  return <p>loading</p>;
}

/** The header's button that shows the dialog again. */
function Ask() {
  const auth = useAuth();
  return auth.refused ? <button onClick={() => auth.setAsking(true)}>Enter API key</button> : null;
}

function enter(key: string) {
  fireEvent.change(screen.getByLabelText('API key'), { target: { value: key } });
  fireEvent.click(screen.getByRole('button', { name: 'Use this key' }));
}

describe('the API key', () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('is asked for on 401, refused with the 403 message, and kept in sessionStorage only', async () => {
    const svc = service();
    vi.stubGlobal('fetch', svc.fetch);
    render(
      <AuthProvider>
        <Agents />
        <KeyDialog />
      </AuthProvider>,
    );
    const alert = await screen.findByRole('alert');
    expect(screen.getByRole('dialog', { name: 'This service needs an API key' })).toBeTruthy();
    expect(alert.textContent).toMatch(/^An API key is required/);
    expect(alert.getAttribute('data-code')).toBe('TENANT_REQUIRED');

    await act(async () => enter('key-wrong'));
    await screen.findByRole('dialog', { name: 'The API key was refused' });
    expect(screen.getByRole('alert').textContent).toBe('The API key is not valid.');
    expect(screen.getByRole('alert').getAttribute('data-code')).toBe('TENANT_UNAUTHORIZED');

    // The same wrong key again is sent again, and refused again.
    await act(async () => enter('key-wrong'));
    await screen.findByRole('dialog', { name: 'The API key was refused' });

    await act(async () => enter(GOOD));
    await screen.findByText('agents: echo');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(svc.keys).toEqual([null, 'key-wrong', 'key-wrong', GOOD]);
    expect(sessionStorage.getItem(KEY_ITEM)).toBe(GOOD);
    expect(localStorage.length).toBe(0);
    expect(document.cookie).toBe('');
    // Role queries are slow in jsdom (a style computed per element), and
    // this test makes many: on a loaded machine it outlasts the default 5 s.
  }, 20_000);

  it('is read back from sessionStorage and sent at once', async () => {
    sessionStorage.setItem(KEY_ITEM, GOOD);
    const svc = service();
    vi.stubGlobal('fetch', svc.fetch);
    render(
      <AuthProvider>
        <Agents />
        <KeyDialog />
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByText('agents: echo')).toBeTruthy());
    expect(svc.keys).toEqual([GOOD]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('stays dismissed after Escape while the page is refused again, until asked for', async () => {
    const svc = service();
    vi.stubGlobal('fetch', svc.fetch);
    function Twice() {
      const [n, setN] = useState(0);
      return (
        <>
          <button onClick={() => setN(n + 1)}>again</button>
          <Agents key={n} />
        </>
      );
    }
    render(
      <AuthProvider>
        <Twice />
        <Ask />
        <KeyDialog />
      </AuthProvider>,
    );
    const dialog = await screen.findByRole('dialog', { name: 'This service needs an API key' });
    // Escape: the browser fires cancel, then closes the dialog.
    await act(async () => {
      dialog.dispatchEvent(new Event('cancel'));
      (dialog as HTMLDialogElement).close();
    });
    expect(screen.queryByRole('dialog')).toBeNull();
    // Another request refused: the dialog stays closed.
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'again' })));
    await waitFor(() => expect(svc.keys).toEqual([null, null]));
    expect(screen.queryByRole('dialog')).toBeNull();
    // Asked for from the header: shown again.
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Enter API key' })));
    expect(screen.getByRole('dialog', { name: 'This service needs an API key' })).toBeTruthy();
  });
});
