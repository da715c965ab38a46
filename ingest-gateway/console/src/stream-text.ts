import type { FeedState } from './event-feed.js';

/** The status line's words for the live stream's state (Events and Overview). */
export function streamText(state: FeedState): string {
  switch (state.kind) {
    case 'connecting':
      return 'Connecting to the live stream…';
    case 'live':
      return 'Live: new events appear as they arrive.';
    case 'reconnecting':
      return `Reconnecting in ${state.inSeconds} s (the stream resumes where it stopped)…`;
    case 'stopped':
      return `Live updates stopped: ${state.reason}`;
    case 'off':
      return state.reason;
  }
}
