import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { timeOrderedUuid } from '../src/domain/time-ordered-id.ts';

describe('time-ordered ids (UUID v7)', () => {
  it('are UUIDs of version 7 and the RFC variant, with the time in front', () => {
    const at = new Date('2026-11-26T12:00:00.000Z');
    const id = timeOrderedUuid(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(z.uuid().safeParse(id).success).toBe(true);
    expect(Number.parseInt(id.replace('-', '').slice(0, 12), 16)).toBe(at.getTime());
  });

  it('sort by time as text, and differ within one millisecond', () => {
    const times = [0, 1, 255, 256, 65_535, 1_800_000_000_000, 1_800_000_000_001].map((t) => new Date(t));
    const ids = times.map(timeOrderedUuid);
    expect([...ids].sort()).toEqual(ids);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(times[5]!)));
    expect(same.size).toBe(1000);
  });
});
