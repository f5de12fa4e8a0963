/**
 * The button under a list shown a page at a time: it says how many the next page adds and how many
 * `noun` remain; nothing when none remain.
 */
export function ShowMore({
  page,
  remaining,
  noun,
  onMore,
}: {
  page: number;
  remaining: number;
  noun: string;
  onMore: () => void;
}) {
  if (remaining <= 0) return null;
  return (
    <button type="button" className="show-more" onClick={onMore}>
      Show {Math.min(page, remaining)} more of {remaining} remaining {noun}
    </button>
  );
}
