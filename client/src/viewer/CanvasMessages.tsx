// The viewer's messages over the top of the canvas, taking no room: at the top of the sidebar they
// pushed the panels down while they were used (e.g. just after making a cluster). An error stays
// until clicked; a notice goes by itself once read (not while the pointer or the focus is on it).
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ErrorMessage } from '../pages/ErrorMessage';
import { noticeMs } from './notices';
import type { Unavailable } from './usePlotErrors';

/** One notice shown: `id` tells a repeated text apart, whose time starts again. */
export interface Notice {
  content: ReactNode;
  id: number;
}

export interface Notices {
  notice: Notice | null;
  /** Shows a notice in place of the one shown; an empty one clears it. */
  notify(content: ReactNode): void;
  dismiss(): void;
}

export function useNotices(initial: ReactNode): Notices {
  const seq = useRef(0);
  const [notice, setNotice] = useState<Notice | null>(() => (initial ? { content: initial, id: 0 } : null));
  const notify = useCallback((content: ReactNode) => setNotice(content ? { content, id: ++seq.current } : null), []);
  const dismiss = useCallback(() => setNotice(null), []);
  return { notice, notify, dismiss };
}

/** A dismissed error is only hidden (a failed load stays failed, not "Loading…"). A plot that is unavailable says so for good. */
export function CanvasMessages({ error, unavailable, embed, notice, dismissNotice }: {
  error: unknown; unavailable: Unavailable; embed: boolean; notice: Notice | null; dismissNotice(): void;
}) {
  const [dismissed, setDismissed] = useState<unknown>(null);
  const shown = !unavailable && error !== dismissed && error;
  return (
    <div className="messages-anchor">
      <div className="messages">
        {unavailable && <PlotUnavailable why={unavailable} embed={embed} />}
        {!!shown && <div title="click to dismiss" onClick={() => setDismissed(error)}><ErrorMessage error={shown} /></div>}
        {/* Always there, empty between notices: a live region announces what appears in it. */}
        <div role="status" aria-live="polite" className="notice-region">
          {notice && <NoticeBanner key={notice.id} content={notice.content} dismiss={dismissNotice} />}
        </div>
      </div>
    </div>
  );
}

function NoticeBanner({ content, dismiss }: { content: ReactNode; dismiss(): void }) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  useEffect(() => {
    if (hovered || focused) return; // being read or used: the time starts again once left
    const timer = window.setTimeout(dismiss, noticeMs(typeof content === 'string' ? content : null));
    return () => clearTimeout(timer);
  }, [content, hovered, focused, dismiss]);
  return (
    <p className="notice" data-testid="notice" title="click to dismiss" onClick={dismiss}
      onMouseEnter={() => setHovered(true)} onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)} onBlur={() => setFocused(false)}>
      {content}
      <button className="dismiss" aria-label="dismiss the notice">×</button>
    </p>
  );
}

const UNAVAILABLE: Record<NonNullable<Unavailable>, string> = {
  missing: 'This plot does not exist, or it is private and you are not its owner.',
  gone: 'This plot has been deleted, or it is no longer shared with you.',
};

function PlotUnavailable({ why, embed }: { why: NonNullable<Unavailable>; embed: boolean }) {
  return (
    <p className="error" role="alert" data-testid="plot-unavailable">
      {UNAVAILABLE[why]} <a href="/" {...(embed && { target: '_blank', rel: 'noopener' })}>Go to the library</a>
    </p>
  );
}
