// Entry of the offline single file (vite build --mode offline → dist/attnscale-offline.html).
// A page opened from file:// cannot start a Worker from a file, so the compute Worker is inlined
// (a blob Worker) and installed as the shared engine client before the page's own entry runs.
import './install-worker.js';
import '../page/main.js';
