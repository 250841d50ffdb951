// The MCP sessions pages, loaded on demand (chunk.tsx): Sessions.tsx is a
// chunk of its own, fetched when a sessions page is first shown, so that
// the errors list's first load carries none of it.

import { ChunkPending, chunk, useChunk } from './chunk';
import type { SessionFilters } from './route';

// In the page's stylesheet: see chunk.tsx.
import './ListPage.css';
import './Sessions.css';

const sessions = chunk(() => import('./sessions'));

export function SessionsPage({ filters, cursor }: { filters: SessionFilters; cursor: string }) {
  const { mod, failure } = useChunk(sessions);
  if (mod) return <mod.SessionsPage filters={filters} cursor={cursor} />;
  return <ChunkPending title="Sessions" titleId="sessions-title" what="the sessions" failure={failure} />;
}

export function SessionPage({ id }: { id: string }) {
  const { mod, failure } = useChunk(sessions);
  if (mod) return <mod.SessionPage id={id} />;
  return <ChunkPending title={`Session ${id}`} titleId="session-title" what="the session's page" failure={failure} />;
}
