import { useEffect, useRef, type ReactNode } from 'react';
import { useNotice } from './notice.tsx';

/**
 * A secret the server answers once (an API key, a webhook signing secret): shown here with a copy
 * button and a warning, then never again. Focus moves to it so a screen reader reads it at once.
 */
export function SecretOnce({ what, secret, onDone, children }: { what: string; secret: string; onDone: () => void; children?: ReactNode }) {
  const notify = useNotice();
  const ref = useRef<HTMLDivElement>(null);
  const code = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [secret]);
  const copy = () => {
    const selectIt = () => {
      // No clipboard (an insecure origin, a refusal): select it so Ctrl+C copies it.
      const range = document.createRange();
      if (code.current) range.selectNodeContents(code.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      notify('Selected: press Ctrl+C (⌘C) to copy it');
    };
    if (!navigator.clipboard) return selectIt();
    navigator.clipboard.writeText(secret).then(() => notify(`${what[0]?.toUpperCase()}${what.slice(1)} copied`), selectIt);
  };
  return (
    <div className="panel key-shown" role="alert" tabIndex={-1} ref={ref}>
      <p>
        <strong>Copy the {what} now:</strong> it is shown only this once and cannot be read again.
      </p>
      {children}
      <code className="secret" ref={code}>
        {secret}
      </code>
      <div className="row">
        <button type="button" className="button" onClick={copy}>
          Copy
        </button>
        <button type="button" className="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}
