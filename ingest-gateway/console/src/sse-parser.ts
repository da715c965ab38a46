/** One Server-Sent Events frame: its id (if any), its event name and its data lines joined. */
interface SseFrame {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * An incremental parser of a text/event-stream body (the WHATWG rules the gateway's frames use:
 * `field: value` lines, a blank line ends a frame, lines starting with ':' are comments). Feed it
 * decoded text in chunks of any size; it returns the frames each chunk completed.
 */
export function createSseParser(): (text: string) => SseFrame[] {
  let buffered = '';
  let frame: SseFrame = { id: undefined, event: 'message', data: '' };
  let hasData = false;
  return (text) => {
    buffered += text;
    const frames: SseFrame[] = [];
    for (;;) {
      const end = buffered.search(/\r\n|\r|\n/);
      // A CR closing the chunk may be the first half of a CRLF: wait for the next chunk to tell.
      if (end < 0 || (end === buffered.length - 1 && buffered[end] === '\r')) break;
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + (buffered.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (hasData || frame.id !== undefined) frames.push(frame);
        frame = { id: undefined, event: 'message', data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id') frame.id = value;
      else if (name === 'event') frame.event = value;
      else if (name === 'data') {
        frame.data = hasData ? `${frame.data}\n${value}` : value;
        hasData = true;
      }
    }
    return frames;
  };
}
