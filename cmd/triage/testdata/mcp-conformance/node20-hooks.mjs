// The resolve hook of node20.mjs: "fs", imported by the conformance suite's
// dist/index.js, resolves to fs-compat.mjs instead.
const compat = new URL('./fs-compat.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') &&
      context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: compat, shortCircuit: true };
  }
  return next(specifier, context);
}
