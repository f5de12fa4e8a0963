import type { ReactNode } from "react";

/** A panel's toolbar that reads its data again on Refresh, with the panel's own controls after it. */
export function RefreshBar({
  onRefresh,
  className,
  children,
}: {
  onRefresh: () => void;
  className?: string;
  children?: ReactNode;
}) {
  return (
    <div className={className ? `button-row ${className}` : "button-row"}>
      <button type="button" onClick={onRefresh}>
        Refresh
      </button>
      {children}
    </div>
  );
}
