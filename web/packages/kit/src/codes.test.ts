import { describe, expect, it } from 'vitest';

import { AGUIErrorCode, CODE_ORDER, CODES, ERROR_CATEGORIES, ERROR_DOMAINS } from './codes.js';

describe('the generated code table', () => {
  it("holds seed 000's taxonomy with its HTTP statuses and problem types", () => {
    const seed: [string, number][] = [
      ['AGENT_EXECUTION_ERROR', 500],
      ['TENANT_REQUIRED', 401],
      ['TENANT_UNAUTHORIZED', 403],
      ['SESSION_NOT_FOUND', 404],
      ['RATE_LIMITED', 429],
      ['TIMEOUT', 504],
      ['INVALID_REQUEST', 400],
      ['CAPABILITY_NOT_FOUND', 404],
      ['UPSTREAM_ERROR', 502],
      ['SERVICE_UNAVAILABLE', 503],
    ];
    for (const [name, status] of seed) {
      // A member's name is its value, the code on the wire.
      const code = AGUIErrorCode[name as keyof typeof AGUIErrorCode];
      expect(code, name).toBe(name);
      expect(CODES[code].httpStatus, name).toBe(status);
    }
    expect(CODES[AGUIErrorCode.RATE_LIMITED].type).toBe('/errors/rate-limited');
    expect(CODES[AGUIErrorCode.TIMEOUT].type).toBe('/errors/timeout');
    expect(CODES[AGUIErrorCode.AGENT_EXECUTION_ERROR].type).toBe('/errors/agent-execution');
  });

  it('has one frozen row per enum value, valued by its own code', () => {
    const values = Object.values(AGUIErrorCode);
    expect([...CODE_ORDER].sort()).toEqual([...values].sort());
    expect(Object.keys(CODES).sort()).toEqual([...values].sort());
    for (const code of CODE_ORDER) {
      const row = CODES[code];
      expect(row.code).toBe(code);
      expect(Object.isFrozen(row)).toBe(true);
      expect(ERROR_CATEGORIES).toContain(row.category);
      expect(ERROR_DOMAINS).toContain(row.domain);
      expect(row.httpStatus).toBeGreaterThanOrEqual(400);
      expect(row.httpStatus).toBeLessThanOrEqual(599);
      expect(row.message.length).toBeGreaterThan(0);
    }
    expect(Object.isFrozen(CODES)).toBe(true);
  });

  it('says which failures are transient', () => {
    const retryable = CODE_ORDER.filter((c) => CODES[c].retryable);
    expect(retryable).toEqual([
      AGUIErrorCode.RATE_LIMITED,
      AGUIErrorCode.TIMEOUT,
      AGUIErrorCode.SERVICE_UNAVAILABLE,
      AGUIErrorCode.TRANSPORT_ERROR,
      AGUIErrorCode.SESSION_BUSY,
    ]);
    expect(CODES[AGUIErrorCode.SESSION_NOT_FOUND].sessionValid).toBe(false);
  });
});
