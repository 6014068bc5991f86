// The dock of a frame that its host sizes to its content: such a frame never scrolls, so the
// bottom of its own view, where the dock sits, can be far below what the reader sees of it. An
// IntersectionObserver with the implicit root measures against the top-level view, also from
// another origin (W3C Intersection Observer, "implicit root"), so the frame learns which part of
// it is on screen and lifts the dock (and the settings sheet) to the bottom of that part.
const STEPS = 200;

/** followVisiblePart(target = document.body): keeps --dock-lift and --frame-seen-height on <html>. */
export function followVisiblePart(target = document.body) {
  const style = document.documentElement.style;
  const thresholds = Array.from({ length: STEPS + 1 }, (_, i) => i / STEPS);
  const observer = new IntersectionObserver(
    ([entry]) => {
      // What the host's view cuts off the bottom of the frame's own view (0 when nothing is).
      const seen = entry.isIntersecting ? entry.intersectionRect : null;
      const ownBottom = Math.min(innerHeight, entry.boundingClientRect.bottom);
      const lift = seen ? Math.max(0, Math.round(ownBottom - seen.bottom)) : 0;
      style.setProperty('--dock-lift', `${lift}px`);
      style.setProperty('--frame-seen-height', `${Math.round(seen ? seen.height : innerHeight)}px`);
    },
    { threshold: thresholds },
  );
  observer.observe(target);
  return observer;
}
