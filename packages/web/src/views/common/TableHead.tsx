/** A data table's column: its header, and whether it holds numbers (aligned like its cells). */
export interface Column {
  label: string;
  num?: boolean;
}

/** A data table's header row, one column header for each column. */
export function TableHead({ columns }: { columns: readonly (string | Column)[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => {
          const column = typeof c === "string" ? { label: c } : c;
          return (
            <th key={column.label} scope="col" className={column.num ? "num" : undefined}>
              {column.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
