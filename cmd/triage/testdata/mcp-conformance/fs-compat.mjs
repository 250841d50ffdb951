// node:fs with a globSync that says it needs Node 22 (see node20.mjs).
export * from 'node:fs';
export function globSync() {
  throw new Error('fs.globSync needs Node 22: the conformance suite\'s tier-check does not run on Node 20');
}
