/**
 * Whether a process with this id runs on this machine. One of another user counts (it cannot be
 * signalled, but it runs): a lock, marker or half-built file it owns must be left alone.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
