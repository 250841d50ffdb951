import { defineConfig } from 'vitest/config';

// One Vite project for the whole of web/: the kit (src/kit) now, the
// dashboard (src/dashboard) later. Vitest runs every *.test.ts(x) under src
// in jsdom.
export default defineConfig({
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
  },
});
