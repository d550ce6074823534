import { useId, useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A modal dialog on the native <dialog>: the browser traps focus and closes it on Escape; the
 * title names it for screen readers. Focus goes back to the element that had it when the dialog
 * opened (its opener) when the dialog closes, however it closes (Escape, Cancel, ×, a save), if
 * that element is still on the page: the browser's own restoring does not happen here, since the
 * <dialog> is taken out of the document when the page stops rendering it.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Its own id: a dialog opened over another (the password asked for a change made in one) is named by its own title.
  const titleId = useId();
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      // Escape: the page stops showing the dialog (which hands focus back above).
      onCancel={onClose}
      // Closed by the browser otherwise; not the close the cleanup itself queues.
      onClose={() => {
        if (ref.current?.isConnected && !ref.current.open) onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="button ghost" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}
