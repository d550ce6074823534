import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

const NoticeContext = createContext<(text: string) => void>(() => {});

/** Short confirmations ("Invoice created"), read out by screen readers from a live region. */
export function NoticeProvider({ children }: { children: ReactNode }) {
  const [text, setText] = useState('');
  const notify = useCallback((value: string) => {
    setText(value);
    window.setTimeout(() => setText((current) => (current === value ? '' : current)), 5000);
  }, []);
  return (
    <NoticeContext.Provider value={notify}>
      {children}
      <div className="notice" role="status" aria-live="polite">
        {text}
      </div>
    </NoticeContext.Provider>
  );
}

export const useNotice = () => useContext(NoticeContext);
