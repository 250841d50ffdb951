import { describe, expect, it } from 'vitest';

import * as kit from './index';

describe('the kit entry point', () => {
  it('exports the table, the parsers, the hook and the toaster', () => {
    expect(kit.AGUIErrorCode.RATE_LIMITED).toBe('RATE_LIMITED');
    expect(kit.CODES[kit.AGUIErrorCode.RATE_LIMITED].httpStatus).toBe(429);
    for (const f of [
      kit.parseRunError,
      kit.parseProblem,
      kit.readProblem,
      kit.parseError,
      kit.parseRetryAfter,
      kit.isRetryableError,
      kit.retryDelay,
      kit.useAGUIErrorHandler,
    ]) {
      expect(typeof f).toBe('function');
    }
    expect(kit.Toaster).toBeTruthy();
  });
});
