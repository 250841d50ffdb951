import { describe, expect, it } from 'vitest';

import * as kit from './index.js';
import * as sonner from './sonner.js';

describe('the kit entry point', () => {
  it('exports the table, the parsers, the hook and the alert; the toasts are apart', () => {
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
      kit.AGUIErrorAlert,
      sonner.useAGUIErrorToasts,
    ]) {
      expect(typeof f).toBe('function');
    }
    expect(sonner.Toaster).toBeTruthy();
    // Nothing of sonner's in the main entry point: an app without sonner uses it.
    expect('Toaster' in kit).toBe(false);
    expect(Object.isFrozen(kit.AGUIErrorCode)).toBe(true);
  });
});
