interface PagerProps {
  number: number;
  hasNext: boolean;
  loading: boolean;
  onNext: () => void;
  onFirst: () => void;
}

/** "First page" and "Next page" under a keyset-paged table. */
export function Pager({ number, hasNext, loading, onNext, onFirst }: PagerProps) {
  return (
    <div class="pager">
      <button type="button" class="secondary" onClick={onFirst} disabled={number === 1 || loading}>
        First page
      </button>
      <span>Page {number}</span>
      <button type="button" onClick={onNext} disabled={!hasNext || loading}>
        Next page
      </button>
    </div>
  );
}
