import type { ComponentChildren } from 'preact';

interface DataTableProps {
  caption: string;
  columns: string[];
  children: ComponentChildren;
  /** What an empty table says. */
  empty?: string;
  rowCount: number;
  /** `cards`: fits its width, and on a narrow screen shows each row as a card of labelled cells (each td's `data-label`). */
  layout?: 'scroll' | 'cards';
}

/**
 * A table with its caption and column headers, inside a focusable region that scrolls sideways on
 * a narrow screen (a keyboard user can scroll it too), or, laid out as `cards`, needs no scrolling.
 */
export function DataTable({ caption, columns, children, empty = 'Nothing yet.', rowCount, layout = 'scroll' }: DataTableProps) {
  if (layout === 'cards') {
    return (
      <div class="table-wrap cards">
        <table class="cards">{tableParts(caption, columns, children, empty, rowCount)}</table>
      </div>
    );
  }
  return (
    <div class="table-wrap" role="region" aria-label={`${caption} (scrolls sideways)`} tabIndex={0}>
      <table>{tableParts(caption, columns, children, empty, rowCount)}</table>
    </div>
  );
}

/** The caption, the column headers and the rows (or what an empty table says). */
function tableParts(caption: string, columns: string[], children: ComponentChildren, empty: string, rowCount: number) {
  return (
    <>
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
    </>
  );
}
