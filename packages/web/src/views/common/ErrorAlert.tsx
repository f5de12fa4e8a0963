/** A failure told where it happened, announced to screen readers; nothing while there is none. */
export function ErrorAlert({ error }: { error: string | null | undefined }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}
