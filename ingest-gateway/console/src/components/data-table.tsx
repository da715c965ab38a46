import type { ComponentChildren } from 'preact';

interface DataTableProps {
  caption: string;
  columns: string[];
  children: ComponentChildren;
  /** What an empty table says. */
  empty?: string;
  rowCount: number;
}

/**
 * A table with its caption and column headers, inside a focusable region that scrolls sideways on
 * a narrow screen (a keyboard user can scroll it too).
 */
export function DataTable({ caption, columns, children, empty = 'Nothing yet.', rowCount }: DataTableProps) {
  return (
    <div class="table-wrap" role="region" aria-label={`${caption} (scrolls sideways)`} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {children}
          {rowCount === 0 && (
            <tr>
              <td colSpan={columns.length} class="empty">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
