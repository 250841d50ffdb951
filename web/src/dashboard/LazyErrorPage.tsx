// One error's page, loaded on demand (chunk.tsx): ErrorPage.tsx, with its
// workflow form, its chart and its grouping (record.ts), is a chunk of its
// own, fetched when a record is first opened, so that the errors list's
// first load carries none of it.

import { ChunkPending, chunk, useChunk } from './chunk';

// In the page's stylesheet: see chunk.tsx.
import './ErrorPage.css';

const record = chunk(() => import('./ErrorPage'));

export function ErrorPage({ id }: { id: string }) {
  const { mod, failure } = useChunk(record);
  if (mod) return <mod.ErrorPage id={id} />;
  return <ChunkPending title={id} titleId="error-title" what="the error's page" failure={failure} />;
}
