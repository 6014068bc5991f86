// The element's attribute names: a config field's name in kebab-case. A module of its own so that
// the component (embed-options.js) does not load the snippets and their measured heights.

/** seqLen → seq-len (attribute names are case-insensitive in HTML, hence kebab-case). */
export const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
