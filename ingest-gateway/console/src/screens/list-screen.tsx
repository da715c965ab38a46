import type { ComponentChildren } from 'preact';
import { Pager } from '../components/pager.js';
import type { useKeysetPages } from '../keyset-pages.js';

type Pages = ReturnType<typeof useKeysetPages>;

/** The parts every list screen shares: its heading, what it lists, load errors and the pager. */
export function ListScreen({ title, intro, pages, children }: { title: string; intro: string; pages: Pages; children: ComponentChildren }) {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">{title}</h1>
      <p class="intro">{intro}</p>
      {children}
      {pages.error && (
        <p role="alert" class="error">
          {pages.error}
        </p>
      )}
      <Pager number={pages.number} hasNext={pages.next !== null} loading={pages.loading} onNext={pages.nextPage} onFirst={pages.firstPage} />
    </section>
  );
}

/** The search box's field: `q=`, a case-insensitive part of the name or id. */
export const SEARCH_FIELD = { name: 'q', label: 'Search', type: 'search', hint: 'Part of the name or id, any case' } as const;
