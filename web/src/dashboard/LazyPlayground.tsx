// The playground, loaded on demand (chunk.tsx): Playground.tsx, and
// @ag-ui/client with it, is a chunk of its own, fetched when the playground
// is first shown.

import { ChunkPending, chunk, useChunk } from './chunk';

// In the page's stylesheet (a kilobyte): see chunk.tsx.
import './Playground.css';

const playground = chunk(() => import('./Playground'));

export function Playground({ agentId }: { agentId: string }) {
  const { mod, failure } = useChunk(playground);
  if (mod) return <mod.Playground agentId={agentId} />;
  return <ChunkPending title="Playground" titleId="playground-title" className="playground" what="the playground" failure={failure} />;
}
