import { useEffect, useState } from 'react';

/** The value once it has stopped changing for `ms`, so typing makes one request, not one per key. */
export function useDebounced<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/**
 * Moves focus to the element with this id once it is on screen (after a dialog closes and the page
 * shows what changed), so keyboard and screen-reader users land where the result is, not on <body>.
 * It waits a moment first: a closing <dialog> hands focus back to its opener, and this comes after.
 */
export function focusWhenShown(id: string, tries = 40): void {
  window.setTimeout(() => {
    const el = document.getElementById(id);
    if (el) el.focus();
    else if (tries > 0) focusWhenShown(id, tries - 1);
  }, 50);
}
