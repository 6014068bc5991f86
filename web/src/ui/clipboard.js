// Copying a text for the reader: the Embed dialog's snippets, the drill's summary for a teacher.

/** Copies `text`: the clipboard API, or else `field` (which shows it) selected and the browser's copy command. */
export async function copyText(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    /* no permission or no clipboard API: select and copy */
  }
  field.focus();
  field.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}
