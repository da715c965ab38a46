import { bucketText, OTHER, type Bar, type Bucket } from '../counts.js';
import { visible } from '../visible-text.js';

interface BarChartProps {
  /** The chart's name ("Events per minute"), read before its bars. */
  title: string;
  bars: Bar[];
  /** Series in stacking order, bottom first; a series' colour is its place here. */
  series: string[];
  bucket: Bucket;
  /** Where a bar leads: the Events screen filtered to its bucket. */
  hrefOf: (bar: Bar) => string;
  /** A series' name as shown (OTHER as "other"). */
  nameOf: (group: string) => string;
}

/** Distinct fills (styles.css, .series-N), then repeated. */
const COLOURS = 10;
const WIDTH = 10;
const HEIGHT = 100;

/** A bar in words, its link's name: "2026-12-02 10:05 UTC: 7 events (motion 4, door 1, other 2)". */
function barText(bar: Bar, bucket: Bucket, nameOf: (group: string) => string): string {
  const parts = [...bar.parts].map(([group, count]) => `${nameOf(group)} ${count}`).join(', ');
  return `${bucketText(bar.start, bucket)}: ${bar.total} ${bar.total === 1 ? 'event' : 'events'}${parts === '' ? '' : ` (${parts})`}`;
}

/**
 * Stacked bars drawn as SVG: each bar is a link to its bucket's events (keyboard-reachable, named
 * in words for a screen reader, its words also its tooltip), each series a fill of its own. Names
 * are text nodes only (visible escapes), never markup.
 */
export function BarChart({ title, bars, series, bucket, hrefOf, nameOf }: BarChartProps) {
  const peak = Math.max(1, ...bars.map((bar) => bar.total));
  const place = new Map(series.map((group, n) => [group, n]));
  return (
    <figure class="chart">
      <figcaption id="chart-title">
        {title} <span class="hint">(peak {peak}; a bar opens its events)</span>
      </figcaption>
      <svg viewBox={`0 0 ${bars.length * WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="group" aria-labelledby="chart-title" class="bars">
        {bars.map((bar, n) => {
          let top = HEIGHT;
          const text = barText(bar, bucket, nameOf);
          return (
            <a key={bar.start} href={hrefOf(bar)} aria-label={text}>
              <title>{text}</title>
              <rect class="hit" x={n * WIDTH} y={0} width={WIDTH} height={HEIGHT} />
              {series.map((group) => {
                const count = bar.parts.get(group) ?? 0;
                if (count === 0) return null;
                const height = (count / peak) * (HEIGHT - 2);
                top -= height;
                const colour = group === OTHER ? 'other' : String((place.get(group) ?? 0) % COLOURS);
                return <rect key={group} class={`series-${colour}`} x={n * WIDTH + 1} y={top} width={WIDTH - 2} height={height} />;
              })}
            </a>
          );
        })}
      </svg>
      <div class="axis">
        <span>{bars[0] ? bucketText(bars[0].start, bucket) : ''}</span>
        <span>{bars.length > 0 ? bucketText((bars[bars.length - 1] as Bar).start, bucket) : ''}</span>
      </div>
      <ul class="legend" aria-label="Series">
        {series.map((group) => (
          <li key={group}>
            <span class={`swatch series-${group === OTHER ? 'other' : String((place.get(group) ?? 0) % COLOURS)}`} aria-hidden="true" />
            {visible(nameOf(group))}
          </li>
        ))}
      </ul>
    </figure>
  );
}
