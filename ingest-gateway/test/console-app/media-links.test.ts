/** What the console loads, links or shows as text among an event's URLs. */
import { describe, expect, it } from 'vitest';
import { shownUrl } from '../../console/src/media-links.js';

const BASE = '/api/platform/dh';
const KEY = `${'ab'.repeat(32)}.png`;

describe('console media links', () => {
  it('loads an image of this gateway store through its same-origin path, whatever host the URL spells', () => {
    expect(shownUrl(`http://localhost:8080${BASE}/media/${KEY}`, BASE)).toEqual({ kind: 'stored', path: `${BASE}/media/${KEY}`, href: `http://localhost:8080${BASE}/media/${KEY}` });
    expect(shownUrl(`https://events.example.com${BASE}/media/${KEY}`, BASE)).toEqual({ kind: 'stored', path: `${BASE}/media/${KEY}`, href: `https://events.example.com${BASE}/media/${KEY}` });
  });

  it('links any other http(s) URL, a look-alike media path included, and never loads it', () => {
    expect(shownUrl('https://cdn.example.com/a.jpg', BASE)).toEqual({ kind: 'link', href: 'https://cdn.example.com/a.jpg' });
    for (const url of [`https://x.example${BASE}/media/${KEY}?track=1`, `https://x.example${BASE}/media/../${KEY}`, `https://x.example/other${BASE}/media/${KEY}`, `https://x.example${BASE}/media/abc.png`]) {
      expect(shownUrl(url, BASE).kind, url).toBe('link');
    }
  });

  it('shows javascript:, data: and anything unparsable as text', () => {
    for (const url of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:image/png;base64,AAAA', 'vbscript:x', 'not a url', '//evil.example/x.png', '']) {
      expect(shownUrl(url, BASE), url).toEqual({ kind: 'text' });
    }
  });
});
