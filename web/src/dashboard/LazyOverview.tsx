// The overview, loaded on demand (chunk.tsx): Overview.tsx and its charts
// are a chunk of their own, fetched when the overview is first shown.

import { ChunkPending, chunk, useChunk } from './chunk';

// In the page's stylesheet: see chunk.tsx.
import './Overview.css';

const overview = chunk(() => import('./Overview'));

export function Overview({ range }: { range: string }) {
  const { mod, failure } = useChunk(overview);
  if (mod) return <mod.Overview range={range} />;
  return <ChunkPending title="Overview" titleId="overview-title" className="overview" what="the overview" failure={failure} />;
}
