/**
 * The source of "now". Rules that depend on time (autolock, due dates, reminders) take it from the
 * context, never from the wall clock, so tests can set it.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
