import { useCallback, useState } from "react";

/**
 * The busy flag and the error of a control that sends something (an answer to an ask, an edit):
 * disabled while it is on its way, its failure shown in place, an earlier failure cleared by a new try.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
