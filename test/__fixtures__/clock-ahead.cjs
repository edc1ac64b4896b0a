// Simulates time passing for a long-running gateway: Date.now() runs ahead by the milliseconds in $TG_CLOCK_FILE,
// and the hourly retention timer fires every 2 s. Nothing else of the CLI is changed.
const fs = require('node:fs');
const file = process.env.TG_CLOCK_FILE;
const realNow = Date.now.bind(Date);
const offset = () => { try { return Number(fs.readFileSync(file, 'utf8')) || 0; } catch { return 0; } };
Date.now = () => realNow() + offset();
const realSetInterval = globalThis.setInterval;
globalThis.setInterval = (fn, ms, ...args) => realSetInterval(fn, ms === 3_600_000 ? 2_000 : ms, ...args);
