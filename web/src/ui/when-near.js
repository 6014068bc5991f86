// Runs `fn` once, when `el` first comes within `margin` of the viewport (at once where
// IntersectionObserver is missing). Chapter 8's panels measure fixed setups that take seconds of
// a Worker's time; a reader who never scrolls there should not pay for them.
export function whenNear(el, fn, margin = '800px 0px') {
  if (typeof IntersectionObserver !== 'function') {
    fn();
    return () => {};
  }
  const io = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      fn();
    },
    { rootMargin: margin },
  );
  io.observe(el);
  return () => io.disconnect();
}
