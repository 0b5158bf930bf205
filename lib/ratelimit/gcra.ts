/**
 * The generic cell rate algorithm, as Inngest's `throttle` defines it: `capacity` starts may happen
 * at once, then one every `emissionMs`. The state is one time per key (the theoretical arrival
 * time, `tat`), kept by the caller in the database under a lock so it holds across processes.
 */
export interface Gcra {
  /** Theoretical arrival time of the next start, ms since the epoch. */
  tat: number;
  /** The clock of the claim (the database's `now()`), ms. */
  now: number;
  emissionMs: number;
  /** Starts allowed at once (≥ 1). */
  capacity: number;
  /** Whether `admit` let a start through (the state must be written back). */
  changed: boolean;
}

export function gcra(tat: number | null, now: number, emissionMs: number, capacity: number): Gcra {
  return { tat: tat ?? now, now, emissionMs, capacity: Math.max(1, capacity), changed: false };
}

/** Admits one start (null) or returns when the next one will be admitted, ms. */
export function admit(g: Gcra): number | null {
  const tat = Math.max(g.tat, g.now);
  const tolerance = (g.capacity - 1) * g.emissionMs;
  if (tat - g.now > tolerance) return tat - tolerance;
  g.tat = tat + g.emissionMs;
  g.changed = true;
  return null;
}
