import { describe, expect, it } from 'vitest';
import { flag, isoTime } from '../../src/entities/column-values.js';

describe('column values in entities', () => {
  it('shows a 0/1 flag as a boolean', () => {
    expect([flag(1), flag(0)]).toEqual([true, false]);
  });

  it('passes a stored time through and shows an absent one as null', () => {
    expect(isoTime('2024-05-01T10:00:00.000Z')).toBe('2024-05-01T10:00:00.000Z');
    expect(isoTime('2024-05-01T12:00:00+02:00')).toBe('2024-05-01T12:00:00+02:00');
    expect([isoTime(null), isoTime(undefined)]).toEqual([null, null]);
  });
});
