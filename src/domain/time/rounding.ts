/** A project's `time_round_upto`, in minutes. */
const ROUNDING_STEPS = [0, 6, 15, 30] as const;
type RoundingStep = (typeof ROUNDING_STEPS)[number];

const isRoundingStep = (value: number): value is RoundingStep => (ROUNDING_STEPS as readonly number[]).includes(value);

/**
 * Rounds a duration **up** to the next multiple of the project's step (0 = no rounding). An exact
 * multiple stays as it is; one second over goes to the next step.
 */
export function roundUpSeconds(seconds: number, stepMinutes: number): number {
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError(`not a duration in seconds: ${seconds}`);
  if (!isRoundingStep(stepMinutes)) throw new RangeError(`not a rounding step: ${stepMinutes}`);
  if (stepMinutes === 0) return seconds;
  const step = stepMinutes * 60;
  return Math.ceil(seconds / step) * step;
}
