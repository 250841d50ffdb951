// The runs pages, loaded on demand (chunk.tsx): Runs.tsx and Run.tsx (the
// list, and a run with its timeline of events) are a chunk of their own,
// fetched when a runs page is first shown, so that the errors list's first
// load carries none of them.

import { ChunkPending, chunk, useChunk } from './chunk';
import type { RunFilters } from './route';

// In the page's stylesheet: see chunk.tsx.
import './ListPage.css';
import './Runs.css';

const runs = chunk(() => import('./runs'));

export function RunsPage({ filters, cursor }: { filters: RunFilters; cursor: string }) {
  const { mod, failure } = useChunk(runs);
  if (mod) return <mod.RunsPage filters={filters} cursor={cursor} />;
  return <ChunkPending title="Runs" titleId="runs-title" what="the runs" failure={failure} />;
}

export function RunPage({ id }: { id: string }) {
  const { mod, failure } = useChunk(runs);
  if (mod) return <mod.RunPage id={id} />;
  return <ChunkPending title={`Run ${id}`} titleId="run-title" what="the run's page" failure={failure} />;
}
