// Panel element → the `exports` its frame was made with (frame/panel-frame.js): what a GIF reads to
// draw a copy of the panel's charts (export/gif-frames.js).
export const panelExports = new WeakMap();
