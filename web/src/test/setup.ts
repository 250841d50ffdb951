// Test setup for every Vitest file under src: React's act() environment,
// and Testing Library's cleanup after each test (Vitest runs without
// globals, so Testing Library cannot register it by itself).
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => {
  cleanup();
});
